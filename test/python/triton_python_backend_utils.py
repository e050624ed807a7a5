"""A small, faithful stand-in for Triton's `triton_python_backend_utils` module.

It implements the parts of the Python backend API that generated models use (see
python_backend `src/resources/triton_python_backend_utils.py` and `src/pb_stub.cc`): tensors,
requests, responses, errors, the decoupled response sender and BLS `exec()`/`async_exec()`.
BLS calls are dispatched to stub models registered with `register_model`; every call is recorded
in `CALLS` so tests can see which composing models ran.
"""

import json

import numpy as np

TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2
TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1
TRITONSERVER_REQUEST_RELEASE_ALL = 1
TRITONSERVER_REQUEST_RELEASE_RESCHEDULE = 2

_NUMPY_BY_CONFIG = {
    "TYPE_BOOL": np.bool_, "TYPE_UINT8": np.uint8, "TYPE_UINT16": np.uint16, "TYPE_UINT32": np.uint32,
    "TYPE_UINT64": np.uint64, "TYPE_INT8": np.int8, "TYPE_INT16": np.int16, "TYPE_INT32": np.int32,
    "TYPE_INT64": np.int64, "TYPE_FP16": np.float16, "TYPE_FP32": np.float32, "TYPE_FP64": np.float64,
    "TYPE_STRING": np.object_,
}


def triton_string_to_numpy(triton_type):
    """`TYPE_FP32` -> np.float32 (as the real module does)."""
    return _NUMPY_BY_CONFIG[triton_type]


class TritonModelException(Exception):
    """Raised by a model to fail; Triton turns it into an error response."""


class TritonError:
    UNKNOWN = 0
    INTERNAL = 1
    NOT_FOUND = 2
    INVALID_ARG = 3
    UNAVAILABLE = 4
    UNSUPPORTED = 5
    ALREADY_EXISTS = 6
    CANCELLED = 7

    def __init__(self, message, code=INTERNAL):
        if not isinstance(message, str):
            raise TypeError("TritonError message must be a str")
        self._message = message
        self._code = code

    def message(self):
        return self._message

    def code(self):
        return self._code


class Tensor:
    def __init__(self, name, array):
        if not isinstance(name, str):
            raise TypeError("Tensor name must be a str")
        if not isinstance(array, np.ndarray):
            raise TypeError("Tensor data must be a numpy array, got %s" % type(array).__name__)
        self._name = name
        self._array = array

    def name(self):
        return self._name

    def as_numpy(self):
        return self._array

    def shape(self):
        return list(self._array.shape)

    def is_cpu(self):
        return True


def _find(tensors, name):
    for t in tensors:
        if t.name() == name:
            return t
    return None


def get_input_tensor_by_name(request, name):
    return _find(request.inputs(), name)


def get_output_tensor_by_name(response, name):
    return _find(response.output_tensors(), name)


def get_input_config_by_name(model_config, name):
    for i in model_config.get("input", []):
        if i["name"] == name:
            return i
    return None


def get_output_config_by_name(model_config, name):
    for o in model_config.get("output", []):
        if o["name"] == name:
            return o
    return None


def using_decoupled_model_transaction_policy(model_config):
    return bool(model_config.get("model_transaction_policy", {}).get("decoupled", False))


class InferenceResponse:
    def __init__(self, output_tensors=None, error=None, parameters=None):
        if error is not None and not isinstance(error, TritonError):
            raise TypeError("error must be a TritonError")
        for t in output_tensors or []:
            if not isinstance(t, Tensor):
                raise TypeError("output_tensors must hold pb_utils.Tensor objects")
        self._outputs = list(output_tensors or [])
        self._error = error
        self._parameters = parameters

    def output_tensors(self):
        return self._outputs

    def has_error(self):
        return self._error is not None

    def error(self):
        return self._error


class ResponseSender:
    """Collects what a model sends; sending after the FINAL flag is an error, as in Triton."""

    def __init__(self):
        self.responses = []
        self.flags = []
        self.closed = False

    def send(self, response=None, flags=0):
        if self.closed:
            raise TritonModelException("Unable to send response. Response sender has been closed.")
        if response is not None and not isinstance(response, InferenceResponse):
            raise TypeError("send() takes an InferenceResponse")
        if response is None and flags != TRITONSERVER_RESPONSE_COMPLETE_FINAL:
            raise TritonModelException("a response is required unless the FINAL flag is sent")
        if response is not None:
            self.responses.append(response)
        self.flags.append(flags)
        if flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL:
            self.closed = True

    def is_cancelled(self):
        return False


_MODELS = {}
CALLS = []


def register_model(name, fn, decoupled=False):
    """Registers a stub composing model: fn(inputs: dict[str, ndarray], request) -> dict or
    (decoupled) a list of dicts. Raise TritonModelException to return an error."""
    _MODELS[name] = (fn, decoupled)


class _ResponseIterator:
    def __init__(self, responses):
        self._responses = list(responses)

    def __iter__(self):
        return iter(self._responses)

    def cancel(self):
        pass


class InferenceRequest:
    def __init__(self, model_name=None, requested_output_names=None, inputs=None, request_id="",
                 correlation_id=0, flags=0, model_version=-1, timeout=0, preferred_memory=None,
                 parameters=None, trace=None):
        self._model_name = model_name
        self._requested = list(requested_output_names or [])
        self._inputs = list(inputs or [])
        self._request_id = request_id
        self._correlation_id = correlation_id
        self._flags = flags
        self._parameters = parameters if isinstance(parameters, str) else json.dumps(parameters or {})
        self._sender = None

    def inputs(self):
        return self._inputs

    def request_id(self):
        return self._request_id

    def correlation_id(self):
        return self._correlation_id

    def flags(self):
        return self._flags

    def parameters(self):
        return self._parameters

    def requested_output_names(self):
        return self._requested

    def is_cancelled(self):
        return False

    def get_response_sender(self):
        if self._sender is None:
            self._sender = ResponseSender()
        return self._sender

    def _run_stub(self):
        if self._model_name not in _MODELS:
            return False, [InferenceResponse(error=TritonError(
                "Failed for execute the inference request. Model '%s' is not ready." % self._model_name))]
        fn, decoupled = _MODELS[self._model_name]
        arrays = {t.name(): t.as_numpy() for t in self._inputs}
        CALLS.append({"model": self._model_name, "inputs": sorted(arrays),
                      "correlation_id": self._correlation_id, "flags": self._flags})
        try:
            produced = fn(arrays, self)
        except TritonModelException as e:
            return decoupled, [InferenceResponse(error=TritonError(str(e)))]
        outs = produced if decoupled else [produced]
        responses = []
        for out in outs:
            missing = [n for n in self._requested if n not in out]
            if missing:
                return decoupled, [InferenceResponse(error=TritonError("stub did not produce %s" % missing))]
            wanted = self._requested or sorted(out)
            responses.append(InferenceResponse(output_tensors=[Tensor(n, np.asarray(out[n])) for n in wanted]))
        return decoupled, responses

    def exec(self, decoupled=False):
        model_decoupled, responses = self._run_stub()
        if decoupled:
            # The last response of a decoupled BLS call carries only the FINAL flag.
            return _ResponseIterator(responses + [InferenceResponse()])
        if model_decoupled:
            return InferenceResponse(error=TritonError(
                "exec() on a decoupled model: use exec(decoupled=True)"))
        return responses[0]

    async def async_exec(self, decoupled=False):
        return self.exec(decoupled=decoupled)
