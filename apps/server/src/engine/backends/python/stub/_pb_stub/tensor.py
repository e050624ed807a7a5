"""pb_utils.Tensor: a named numpy array, CPU only, as python_backend's Tensor."""

import math

import numpy as np

from .dtypes import (NUMPY_OF_DATATYPE, TRITON_TYPE_CODE, datatype_of, deserialize_bytes, require_datatype,
                     serialize_bytes)
from .errors import TritonModelException
from .runtime import RUNTIME


class Tensor:
    """`Tensor(name, array)`: an input or output tensor; `as_numpy()` gives the array back."""

    def __init__(self, name, numpy_array):
        if type(name) is not str:
            if isinstance(name, (bytes, bytearray)):
                name = name.decode("utf-8")
            if not isinstance(name, str):
                raise TypeError(f"Tensor name must be a str, got {type(name).__name__}")
        if name == "":
            raise TritonModelException("Tensor name cannot be an empty string.")
        array = numpy_array if isinstance(numpy_array, np.ndarray) else np.asarray(numpy_array)
        self._datatype = datatype_of(array.dtype) or require_datatype(array.dtype, f"Tensor '{name}'")
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        self._name = name
        self._array = array

    @classmethod
    def _from_wire(cls, described, blob):
        """An input tensor whose array is a view of the frame's (writable) blob, or a copy of its region bytes."""
        name, datatype = described["name"], described["datatype"]
        shape = tuple(map(int, described["shape"]))
        nbytes = int(described["nbytes"])
        if "region" in described:
            blob, offset = RUNTIME.regions.read(int(described["region"]), nbytes), 0
        else:
            offset = int(described["offset"])
        dtype = NUMPY_OF_DATATYPE.get(datatype)
        if dtype is None:
            raise TritonModelException(f"tensor '{name}': unknown datatype {datatype!r}")
        if offset < 0 or nbytes < 0 or offset + nbytes > len(blob):
            raise TritonModelException(f"tensor '{name}': bytes {offset}..{offset + nbytes} lie past the frame's end")
        count = math.prod(shape)  # np.prod costs ~8 µs a tensor here, a tenth of a small request's whole stub time
        if datatype == "BYTES":
            where = f"tensor '{name}'"
            array = deserialize_bytes(memoryview(blob)[offset:offset + nbytes], count, where).reshape(shape)
        else:
            if count * dtype.itemsize != nbytes or min(shape, default=0) < 0:
                raise TritonModelException(
                    f"tensor '{name}': {nbytes} bytes do not fit shape {list(shape)} of {datatype}")
            # The shaped view in one call (a third of frombuffer's with keywords and a reshape); the checks above
            # keep it inside the blob, which numpy's constructor does not check below offset 0.
            array = np.ndarray(shape, dtype, blob, offset)
        tensor = cls.__new__(cls)
        tensor._name, tensor._datatype, tensor._array = name, datatype, array
        return tensor

    def _to_wire(self):
        """(name, datatype, shape, buffer) for a frame: raw little-endian bytes, BYTES serialised."""
        array = self._array
        if self._datatype == "BYTES":
            return self._name, "BYTES", array.shape, serialize_bytes(array)
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))
        # The array itself: C-contiguous (made so in __init__), so its buffer is its bytes in order, which writev
        # and the region's copy take as they are.
        return self._name, self._datatype, array.shape, array

    def name(self):
        return self._name

    def as_numpy(self):
        return self._array

    def triton_dtype(self):
        return TRITON_TYPE_CODE[self._datatype]

    def shape(self):
        return list(self._array.shape)

    def is_cpu(self):
        return True

    def to_dlpack(self):
        if self._datatype == "BYTES":
            raise TritonModelException(f"Tensor '{self._name}': BYTES tensors have no DLPack form")
        return self._array.__dlpack__()

    def __dlpack__(self, stream=None):
        return self.to_dlpack()

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()

    @staticmethod
    def from_dlpack(name, tensor):
        """A Tensor from an object with __dlpack__ (a CPU array of another library)."""
        if not hasattr(tensor, "__dlpack__"):
            raise TritonModelException(
                f"Tensor.from_dlpack('{name}'): pass an object with __dlpack__ and __dlpack_device__; "
                "bare PyCapsules are not supported by the studio")
        return Tensor(name, np.from_dlpack(tensor))

    def __repr__(self):
        return f"Tensor({self._name!r}, {self._datatype}, shape={list(self._array.shape)})"
