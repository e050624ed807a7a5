"""pb_utils.InferenceRequest: the requests `execute` receives, and BLS requests a model builds."""

import asyncio
import threading

import numpy as np

from .bls import BlsCalls
from .errors import TritonModelException
from .limits import OverLimit
from .response import InferenceResponseSender, check_tensors, parameters_json
from .runtime import RUNTIME

TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2
TRITONSERVER_REQUEST_RELEASE_ALL = 1
TRITONSERVER_REQUEST_RELEASE_RESCHEDULE = 2

TRITONSERVER_MEMORY_GPU = 0
TRITONSERVER_MEMORY_CPU = 1

_bls_lock = threading.Lock()


def _text(value):
    """A string argument; bytes (an element of a BYTES tensor, as models often pass) are UTF-8 text."""
    return value.decode("utf-8") if isinstance(value, (bytes, bytearray)) else str(value)


def _checked_correlation_id(value):
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TritonModelException(f"InferenceRequest correlation_id must be an int or a str, got {type(value).__name__}")
    return value


class PreferredMemory:
    """Where a BLS call's outputs should live; everything is on the CPU in the studio, so it is only recorded."""

    def __init__(self, preferred_memory_type, preferred_device_id=0):
        self.preferred_memory_type = preferred_memory_type
        self.preferred_device_id = preferred_device_id


def _bls():
    with _bls_lock:
        if RUNTIME.bls is None:
            RUNTIME.bls = BlsCalls(RUNTIME.send)
        return RUNTIME.bls


class InferenceRequest:
    """`InferenceRequest(model_name=, inputs=, requested_output_names=, request_id="", correlation_id=0,
    model_version=-1, flags=0, timeout=0, preferred_memory=None, trace=None, parameters=None)`."""

    def __init__(self, request_id="", correlation_id=0, inputs=None, requested_output_names=None,
                 model_name=None, model_version=-1, flags=0, timeout=0, preferred_memory=None,
                 trace=None, parameters=None):
        for arg, value in (("inputs", inputs), ("requested_output_names", requested_output_names),
                           ("model_name", model_name)):
            if value is None:
                raise TypeError(f"InferenceRequest needs '{arg}'")
        if isinstance(correlation_id, (bytes, np.integer)):
            correlation_id = _text(correlation_id) if isinstance(correlation_id, bytes) else int(correlation_id)
        self._request_id = _text(request_id)
        self._correlation_id = _checked_correlation_id(correlation_id)
        self._inputs = check_tensors(inputs, "InferenceRequest inputs")
        self._requested = [str(n) for n in requested_output_names]
        # Triton's binding takes bytes as well (a name read from a BYTES tensor is bytes).
        self._model_name = model_name.decode("utf-8") if isinstance(model_name, (bytes, bytearray)) else str(model_name)
        self._model_version = int(model_version)
        self._flags = int(flags)
        self._timeout = int(timeout)
        self._parameters = parameters_json(parameters, "InferenceRequest")
        self._state = None  # set for requests that came from Node

    @classmethod
    def _incoming(cls, described, inputs, state):
        """A request from Node: its fields are set as sent (the engine checked them), not re-validated."""
        request = cls.__new__(cls)
        request._request_id = str(described.get("request_id", ""))
        request._correlation_id = _checked_correlation_id(described.get("correlation_id", 0))
        request._inputs = inputs
        request._requested = [str(n) for n in described.get("requested_output_names") or []]
        request._model_name = RUNTIME.model_name
        request._model_version = -1
        request._flags = int(described.get("flags", 0))
        request._timeout = int(described.get("timeout", 0))
        request._parameters = described.get("parameters") or "{}"  # as the client sent it
        request._state = state
        return request

    def inputs(self):
        return self._inputs

    def request_id(self):
        return self._request_id

    def correlation_id(self):
        return self._correlation_id

    def flags(self):
        return self._flags

    def set_flags(self, flags):
        self._flags = int(flags)

    def timeout(self):
        return self._timeout

    def parameters(self):
        return self._parameters

    def requested_output_names(self):
        return list(self._requested)

    def model_name(self):
        return self._model_name

    def trace(self):
        return None

    def is_cancelled(self):
        return self._state is not None and self._state.cancelled

    def get_response_sender(self):
        if self._state is None:
            raise TritonModelException("Only a request passed to execute() has a response sender")
        self._state.sender_taken = True
        return InferenceResponseSender(self._state)

    def set_release_flags(self, flags):
        if flags != TRITONSERVER_REQUEST_RELEASE_ALL:
            raise TritonModelException(
                "set_release_flags: request rescheduling (TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, for iterative "
                "sequence batching) is not supported by the studio")

    def _start_bls(self, decoupled):
        if not RUNTIME.initialized or RUNTIME.finalizing:
            raise TritonModelException(
                "BLS requests can only be made while executing: not in initialize, finalize or auto_complete_config")
        header = {"model_name": self._model_name, "model_version": self._model_version,
                  "requested_output_names": self._requested, "correlation_id": self._correlation_id,
                  "request_id": self._request_id, "flags": self._flags, "timeout": self._timeout,
                  "parameters": self._parameters}
        calls = _bls()
        try:
            inputs = RUNTIME.limits.wire(self._inputs, self._input_of_call)
        except OverLimit as exc:
            return calls.refused(str(exc), bool(decoupled))
        return calls.start(header, {"inputs": inputs}, bool(decoupled))

    def _input_of_call(self, name):
        return f"input '{name}' of a BLS request to model '{self._model_name}'"

    def exec(self, decoupled=False):
        """Runs the request on another model and waits: an InferenceResponse, or an iterator when decoupled.
        A failed call comes back as a response whose has_error() is true, never as an exception."""
        waiter = self._start_bls(decoupled)
        return waiter if decoupled else waiter.result()

    def async_exec(self, decoupled=False):
        """As exec, as an awaitable (call it inside `async def execute`)."""
        loop = asyncio.get_running_loop()
        waiter = self._start_bls(decoupled)
        return asyncio.wrap_future(waiter.first if decoupled else waiter, loop=loop)

    def __repr__(self):
        return f"InferenceRequest(model_name={self._model_name!r}, inputs={self._inputs!r})"
