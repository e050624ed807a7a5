"""Datatypes: KServe names on the wire, numpy dtypes in the model, Triton's enum codes for the API."""

import struct

import numpy as np

from .errors import TritonModelException

# Triton's TRITONSERVER_DataType codes, as numpy_to_triton_type/triton_to_numpy_type use them.
TRITON_TYPE_CODE = {
    "BOOL": 1, "UINT8": 2, "UINT16": 3, "UINT32": 4, "UINT64": 5, "INT8": 6, "INT16": 7,
    "INT32": 8, "INT64": 9, "FP16": 10, "FP32": 11, "FP64": 12, "BYTES": 13,
}
CODE_TO_DATATYPE = {code: name for name, code in TRITON_TYPE_CODE.items()}

NUMPY_OF_DATATYPE = {
    "BOOL": np.dtype(np.bool_), "UINT8": np.dtype(np.uint8), "UINT16": np.dtype(np.uint16),
    "UINT32": np.dtype(np.uint32), "UINT64": np.dtype(np.uint64), "INT8": np.dtype(np.int8),
    "INT16": np.dtype(np.int16), "INT32": np.dtype(np.int32), "INT64": np.dtype(np.int64),
    "FP16": np.dtype(np.float16), "FP32": np.dtype(np.float32), "FP64": np.dtype(np.float64),
    "BYTES": np.dtype(np.object_),
}
_DATATYPE_OF_KIND = {np.dtype(v).newbyteorder("<").str: k for k, v in NUMPY_OF_DATATYPE.items() if k != "BYTES"}

# Config names (model_config "data_type") to numpy, as triton_string_to_numpy maps them.
CONFIG_TYPE_TO_NUMPY = {
    "TYPE_BOOL": bool, "TYPE_UINT8": np.uint8, "TYPE_UINT16": np.uint16, "TYPE_UINT32": np.uint32,
    "TYPE_UINT64": np.uint64, "TYPE_INT8": np.int8, "TYPE_INT16": np.int16, "TYPE_INT32": np.int32,
    "TYPE_INT64": np.int64, "TYPE_FP16": np.float16, "TYPE_FP32": np.float32, "TYPE_FP64": np.float64,
    "TYPE_STRING": np.object_,
}


_DATATYPE_OF_DTYPE = {}  # numpy dtype -> name, as asked: working it out costs a small request's tensor ~4 us
_UNKNOWN = object()


def datatype_of(dtype):
    """The KServe datatype name of a numpy dtype, or None when Triton has no such type."""
    cached = isinstance(dtype, np.dtype)
    if cached:
        name = _DATATYPE_OF_DTYPE.get(dtype, _UNKNOWN)
        if name is not _UNKNOWN:
            return name
    dtype = np.dtype(dtype)
    if dtype == np.object_ or dtype.type == np.bytes_:
        name = "BYTES"
    else:
        name = _DATATYPE_OF_KIND.get(dtype.newbyteorder("<").str)
    if cached and len(_DATATYPE_OF_DTYPE) < 256:
        _DATATYPE_OF_DTYPE[dtype] = name
    return name


def require_datatype(dtype, what):
    """datatype_of, raising TritonModelException that names `what` when the dtype has no Triton type."""
    name = datatype_of(dtype)
    if name is None:
        raise TritonModelException(
            f"{what}: numpy dtype {np.dtype(dtype)} is not supported; use bool, (u)int8-64, float16/32/64, "
            "or an object array of bytes for BYTES")
    return name


def element_bytes(value):
    """One BYTES element as bytes: bytes as they are, anything else as its str() in UTF-8."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, np.bytes_):
        return bytes(value)
    return str(value).encode("utf-8")


def serialize_bytes(array):
    """A BYTES array as Triton lays it out: per element (C order) a u32le length, then the bytes."""
    parts = []
    for value in np.asarray(array).reshape(-1):
        data = element_bytes(value)
        parts.append(struct.pack("<I", len(data)))
        parts.append(data)
    return b"".join(parts)


def deserialize_bytes(buffer, count=None, where="BYTES tensor"):
    """Parses Triton's BYTES layout into a 1-D object array of bytes; checks the count when given."""
    view = memoryview(buffer).cast("B")
    items = []
    offset, end = 0, len(view)
    while offset < end:
        if offset + 4 > end:
            raise TritonModelException(f"{where}: a length field is cut off at byte {offset}")
        (length,) = struct.unpack_from("<I", view, offset)
        offset += 4
        if offset + length > end:
            raise TritonModelException(f"{where}: an element of {length} bytes runs past the end at byte {offset}")
        items.append(bytes(view[offset:offset + length]))
        offset += length
    if count is not None and len(items) != count:
        raise TritonModelException(f"{where}: holds {len(items)} elements but its shape needs {count}")
    out = np.empty(len(items), dtype=np.object_)
    out[:] = items
    return out
