"""The studio's own triton_python_backend_utils: what a Triton Python-backend model.py imports.

Same names and behaviour as Triton's python_backend module, implemented for the studio's stub process
(tensors cross to the engine over pipes instead of shared memory; everything is on the CPU).
"""

import numpy as np

from _pb_stub.config import (
    ModelConfig,
    get_input_config_by_name,
    get_output_config_by_name,
    using_decoupled_model_transaction_policy,
)
from _pb_stub.dtypes import CODE_TO_DATATYPE, CONFIG_TYPE_TO_NUMPY, NUMPY_OF_DATATYPE, TRITON_TYPE_CODE, datatype_of
from _pb_stub.dtypes import deserialize_bytes as _deserialize_bytes
from _pb_stub.dtypes import serialize_bytes as _serialize_bytes
from _pb_stub.errors import TritonError, TritonModelException
from _pb_stub.logger import Logger
from _pb_stub.metrics import Metric, MetricFamily, MetricKind
from _pb_stub.request import (
    TRITONSERVER_REQUEST_FLAG_SEQUENCE_END,
    TRITONSERVER_REQUEST_FLAG_SEQUENCE_START,
    TRITONSERVER_REQUEST_RELEASE_ALL,
    TRITONSERVER_REQUEST_RELEASE_RESCHEDULE,
    TRITONSERVER_MEMORY_CPU,
    TRITONSERVER_MEMORY_GPU,
    InferenceRequest,
    PreferredMemory,
)
from _pb_stub.bls import ResponseIterator
from _pb_stub.response import TRITONSERVER_RESPONSE_COMPLETE_FINAL, InferenceResponse, InferenceResponseSender
from _pb_stub.tensor import Tensor

TRITON_STRING_TO_NUMPY = dict(CONFIG_TYPE_TO_NUMPY)

# Tracebacks and reprs name the module users import, not where the classes happen to live.
for _public in (InferenceRequest, InferenceResponse, InferenceResponseSender, Logger, Metric, MetricFamily, ModelConfig,
                PreferredMemory, ResponseIterator, Tensor, TritonError, TritonModelException):
    _public.__module__ = __name__

__all__ = [
    "InferenceRequest", "InferenceResponse", "InferenceResponseSender", "Logger", "Metric", "MetricFamily",
    "MetricKind", "ModelConfig", "PreferredMemory", "ResponseIterator", "Tensor", "TritonError",
    "TritonModelException", "TRITONSERVER_MEMORY_CPU", "TRITONSERVER_MEMORY_GPU",
    "TRITONSERVER_REQUEST_FLAG_SEQUENCE_END", "TRITONSERVER_REQUEST_FLAG_SEQUENCE_START",
    "TRITONSERVER_REQUEST_RELEASE_ALL", "TRITONSERVER_REQUEST_RELEASE_RESCHEDULE",
    "TRITONSERVER_RESPONSE_COMPLETE_FINAL", "TRITON_STRING_TO_NUMPY", "deserialize_bytes_tensor",
    "get_input_config_by_name", "get_input_tensor_by_name", "get_output_config_by_name",
    "get_output_tensor_by_name", "numpy_to_triton_type", "serialize_byte_tensor", "triton_string_to_numpy",
    "triton_to_numpy_type", "using_decoupled_model_transaction_policy",
]


def get_input_tensor_by_name(inference_request, name):
    """The request's input Tensor called `name`, or None."""
    for tensor in inference_request.inputs():
        if tensor.name() == name:
            return tensor
    return None


def get_output_tensor_by_name(inference_response, name):
    """The response's output Tensor called `name`, or None."""
    for tensor in inference_response.output_tensors():
        if tensor.name() == name:
            return tensor
    return None


def triton_string_to_numpy(triton_type_string):
    """numpy type of a config data_type such as 'TYPE_FP32' (KeyError for unknown names, as Triton)."""
    return TRITON_STRING_TO_NUMPY[triton_type_string]


def triton_to_numpy_type(data_type):
    """numpy type of a TRITONSERVER_DataType code (1 BOOL … 13 BYTES), None when there is none."""
    name = CODE_TO_DATATYPE.get(data_type)
    if name is None:
        return None
    return np.bool_ if name == "BOOL" else NUMPY_OF_DATATYPE[name].type


def numpy_to_triton_type(data_type):
    """TRITONSERVER_DataType code of a numpy type or dtype, None when Triton has none."""
    try:
        name = datatype_of(data_type)
    except TypeError:
        return None
    return None if name is None else TRITON_TYPE_CODE[name]


def serialize_byte_tensor(input_tensor):
    """A BYTES array in Triton's layout (u32le length + bytes per element) as a uint8 array; None if not BYTES."""
    array = np.asarray(input_tensor)
    if array.dtype != np.object_ and array.dtype.type != np.bytes_:
        return None
    return np.frombuffer(_serialize_bytes(array), dtype=np.uint8)


def deserialize_bytes_tensor(encoded_tensor):
    """The 1-D object array of bytes held in Triton's BYTES layout."""
    return _deserialize_bytes(encoded_tensor)
