"""InferenceResponse and the per-request InferenceResponseSender."""

import json

from .errors import TritonError, TritonModelException
from .limits import OverLimit
from .runtime import RUNTIME
from .tensor import Tensor

TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1


def parameters_json(parameters, owner):
    """Request/response parameters as Triton keeps them: a JSON object of str keys to bool, int or str."""
    if parameters is None:
        return "{}"
    if isinstance(parameters, str):
        parameters = json.loads(parameters)
    if not isinstance(parameters, dict):
        raise TypeError(f"{owner} parameters must be a dict, got {type(parameters).__name__}")
    for key, value in parameters.items():
        if not isinstance(key, str):
            raise TritonModelException(f"{owner} parameter keys must be str, found {type(key).__name__}")
        if not isinstance(value, (bool, int, str)):
            raise TritonModelException(
                f"{owner} parameter '{key}' must be bool, int or str, found {type(value).__name__}")
    return json.dumps(parameters)


def check_tensors(tensors, owner):
    if tensors is None:
        return []
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{owner} takes a list of pb_utils.Tensor, found {type(t).__name__}")
    return tensors


class InferenceResponse:
    """`InferenceResponse(output_tensors=[], error=None, parameters=None)`."""

    def __init__(self, output_tensors=None, error=None, parameters=None):
        if error is not None and not isinstance(error, TritonError):
            raise TypeError(f"InferenceResponse error must be a pb_utils.TritonError, found {type(error).__name__}")
        self._outputs = check_tensors(output_tensors, "InferenceResponse output_tensors")
        self._error = error
        self._parameters = parameters_json(parameters, "InferenceResponse")

    def output_tensors(self):
        return self._outputs

    def has_error(self):
        return self._error is not None

    def error(self):
        return self._error

    def parameters(self):
        return self._parameters

    def __repr__(self):
        if self._error is not None:
            return f"InferenceResponse(error={self._error!r})"
        return f"InferenceResponse({self._outputs!r})"


def deliver(state, response, flags, raise_refused=False, close_execute=True):
    """Sends one response of an incoming request to Node, with the checks Triton's sender makes (and its words:
    python_backend src/response_sender.cc).

    A response with an output over the server's limits goes as an error response naming it (the request fails
    with that message), and with `raise_refused` (the model's own send) the OverLimit is raised afterwards too,
    as Triton's send raises when it cannot send a response. `close_execute=False`: the caller (the end of an
    execute) forgets the execute itself once every request is final.
    """
    refused = None
    if flags not in (0, TRITONSERVER_RESPONSE_COMPLETE_FINAL):
        raise TritonModelException("Unable to send response. Unsupported flag provided.")
    if response is None and flags == 0:
        raise TritonModelException(
            "Inference Response object must be provided when the response flags is set to zero.")
    if response is not None and not isinstance(response, InferenceResponse):
        raise TypeError(f"send() takes a pb_utils.InferenceResponse, found {type(response).__name__}")
    final = flags == TRITONSERVER_RESPONSE_COMPLETE_FINAL
    with state.lock:
        if not RUNTIME.decoupled:
            if response is not None and state.sent > 0:
                raise TritonModelException(
                    "Unable to send response. Non-decoupled model cannot send more than one response.")
            if response is None and final and state.sent == 0:
                raise TritonModelException(
                    "Unable to send response. Non-decoupled model cannot send complete final before sending a "
                    "response.")
        if state.closed:
            raise TritonModelException("Unable to send response. Response sender has been closed.")
        state.sent += 1
        if final:
            state.closed = True
        header = {"type": "response", "id": state.execute_id, "request": state.index,
                  "outputs": None, "error": None, "final": final}
        tensors = None
        if response is not None:
            if response._error is not None:
                header["error"] = response._error.to_wire()
                tensors = {"outputs": []}
            else:
                requested = state.requested
                keep = [t for t in response._outputs if t._name in requested] if requested else response._outputs
                try:
                    tensors = {"outputs": RUNTIME.limits.wire(keep, _output_of_model)}
                except OverLimit as exc:
                    refused = exc
                    header["error"] = TritonError(str(exc)).to_wire()
                    tensors = {"outputs": []}
            if response._parameters != "{}":
                header["parameters"] = response._parameters
        RUNTIME.send(header, tensors)
    if final and close_execute:
        RUNTIME.close_execute_if_done(state.execute_id)
    if refused is not None and raise_refused:
        raise refused


def _output_of_model(name):
    return f"output '{name}' of model '{RUNTIME.model_name}'"


class InferenceResponseSender:
    """Sends responses of one request: any number for decoupled models, from any thread."""

    def __init__(self, state):
        self._state = state

    def send(self, response=None, flags=0):
        deliver(self._state, response, flags, raise_refused=True)

    def is_cancelled(self):
        return self._state.cancelled
