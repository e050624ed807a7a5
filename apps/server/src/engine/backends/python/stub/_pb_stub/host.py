"""ModelHost: runs the user's TritonPythonModel (auto_complete_config, initialize, execute, finalize)."""

import asyncio
import json
import time

from .config import ModelConfig, using_decoupled_model_transaction_policy
from .errors import TritonError, TritonModelException
from .loader import describe, failure, load_model_class, user_traceback
from .request import InferenceRequest
from .response import TRITONSERVER_RESPONSE_COMPLETE_FINAL, InferenceResponse, deliver
from .runtime import CURRENT_EXECUTE, RUNTIME, RequestState
from .tensor import Tensor


class ModelHost:
    """Called on the model thread, one message at a time."""

    def __init__(self):
        self.model = None
        self.model_file = ""
        self.failure_prefix = "Failed to process the request(s) for model '', message: "

    def _await(self, value):
        if asyncio.iscoroutine(value):
            return asyncio.run_coroutine_threadsafe(value, RUNTIME.event_loop()).result()
        return value

    def auto_complete(self, header):
        try:
            cls = load_model_class(header["model_file"])
            config = ModelConfig(header.get("config") or {})
            name = config.as_dict().get("name", "")
            complete = getattr(cls, "auto_complete_config", None)
            if complete is not None:
                result = complete(config)
                if not isinstance(result, ModelConfig):
                    raise TritonModelException(
                        f"auto_complete_config of model '{name}' must return a pb_utils.ModelConfig, "
                        f"returned {type(result).__name__}")
                config = result
            RUNTIME.send({"type": "auto_completed", "config": config.as_dict()})
        except BaseException as exc:  # SystemExit too: a model calling sys.exit() gets an error, as in Triton
            RUNTIME.send({"type": "failed", **failure(exc, "auto_complete_config failed: ")})

    def init(self, header):
        if RUNTIME.regions.open(header.get("shm")):
            RUNTIME.writer.place = RUNTIME.regions.place
        args = {k: str(v) for k, v in (header.get("args") or {}).items()}
        self.model_file = header.get("model_file", "")
        try:
            config = json.loads(args.get("model_config") or "{}")
            RUNTIME.model_name = args.get("model_name") or config.get("name", "")
            RUNTIME.instance_name = args.get("model_instance_name") or RUNTIME.model_name
            self.failure_prefix = f"Failed to process the request(s) for model '{RUNTIME.instance_name}', message: "
            RUNTIME.decoupled = using_decoupled_model_transaction_policy(config)
            RUNTIME.limits.set(header.get("limits"))
            RUNTIME.writer.max_header = RUNTIME.limits.max_bytes
            self.model = load_model_class(self.model_file)()
            initialize = getattr(self.model, "initialize", None)
            if initialize is not None:
                self._await(initialize(args))
            RUNTIME.initialized = True
            RUNTIME.send({"type": "ready", "shm": RUNTIME.regions.active})
        except BaseException as exc:  # SystemExit too: a model calling sys.exit() gets an error, as in Triton
            RUNTIME.send({"type": "failed", **failure(exc, f"Failed to initialize model '{RUNTIME.model_name}': ")})

    def finalize(self):
        RUNTIME.finalizing = True
        try:
            finalize = getattr(self.model, "finalize", None)
            if finalize is not None:
                self._await(finalize())
            RUNTIME.send({"type": "finalized"})
        except BaseException as exc:  # SystemExit too: a model calling sys.exit() gets an error, as in Triton
            RUNTIME.send({"type": "failed", **failure(exc, f"finalize of model '{RUNTIME.model_name}' failed: ")})

    def execute(self, header, blob):
        execute_id = header.get("id")
        prefix = self.failure_prefix
        states, requests, error, result, ran = [], [], None, None, None
        try:
            for index, described in enumerate(header.get("requests") or []):
                state = RequestState(execute_id, index, described.get("requested_output_names") or [])
                inputs = [Tensor._from_wire(t, blob) for t in described.get("inputs") or []]
                requests.append(InferenceRequest._incoming(described, inputs, state))
                states.append(state)
            RUNTIME.open_execute(execute_id, states)
            running = CURRENT_EXECUTE.set(execute_id)
            try:
                began = time.monotonic_ns()
                result = self._run_execute(requests, states, prefix)
                ran = [began, time.monotonic_ns()]
            finally:
                CURRENT_EXECUTE.reset(running)
        except BaseException as exc:  # SystemExit too: a model calling sys.exit() gets an error, as in Triton
            error = _failed(exc, prefix, states)
        # The returned responses and `executed` leave in one write: Node wakes once per execute, not twice.
        RUNTIME.writer.hold()
        try:
            if error is None:
                try:
                    _send_returned(requests, states, result)
                except BaseException as exc:
                    error = _failed(exc, prefix, states)
            done = {"type": "executed", "id": execute_id, "error": error}
            if ran is not None and error is None:
                done["ns"] = ran
            RUNTIME.send(done)
        finally:
            RUNTIME.writer.release()
        RUNTIME.close_execute_if_done(execute_id)

    def _run_execute(self, requests, states, prefix):
        if self.model is None:
            raise TritonModelException("the model is not initialized")
        execute = getattr(self.model, "execute", None)
        if execute is None:
            raise TritonModelException(f"Python model {self.model_file} does not implement an `execute` method")
        result = execute(requests)
        if asyncio.iscoroutine(result):
            future = asyncio.run_coroutine_threadsafe(result, RUNTIME.event_loop())
            if RUNTIME.decoupled:
                # A decoupled coroutine runs on in the background, so the next execute can start meanwhile.
                future.add_done_callback(lambda f: _background_done(f, states, prefix))
                return None
            return future.result()
        return result


def _failed(exc, prefix, states):
    """The `executed` error for an exception; every request still open is closed (the error answers them)."""
    for state in states:
        with state.lock:
            state.closed = True
    return failure(exc, prefix)


def _send_returned(requests, states, result):
    """Checks what execute returned as Triton does, then sends each response as final."""
    name = RUNTIME.model_name
    if result is None:
        if not RUNTIME.decoupled:
            silent = [s.index for s in states if not s.closed and not s.sender_taken]
            if silent:
                raise TritonModelException(
                    f"execute of non-decoupled model '{name}' returned None and sent no response for request(s) "
                    f"{silent}; return a list with one InferenceResponse per request")
        return
    if RUNTIME.decoupled:
        raise TritonModelException(f"Python model '{name}' is decoupled: its execute must return None and send "
                                   "responses through each request's response sender")
    if not isinstance(result, list):
        raise TritonModelException(f"execute must return a list of InferenceResponse, found type '{type(result)}'")
    if len(result) != len(requests):
        raise TritonModelException(
            f"execute returned {len(result)} InferenceResponse object(s) for {len(requests)} InferenceRequest "
            "object(s); it must return exactly one per request")
    for response in result:
        if response is not None and not isinstance(response, InferenceResponse):
            raise TritonModelException(
                f"execute must return InferenceResponse objects, found type '{type(response)}' in its list")
    for state, response in zip(states, result):
        if response is not None:
            deliver(state, response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, close_execute=False)


def _background_done(future, states, prefix):
    exc = future.exception()
    if exc is None:
        return
    message = prefix + describe(exc)
    RUNTIME.send({"type": "log", "level": "error", "message": f"{message}\n{user_traceback(exc)}",
                  "file": "", "line": 0})
    for state in states:
        if not state.closed:
            try:
                deliver(state, InferenceResponse(error=TritonError(message)), TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            except TritonModelException:
                pass  # closed meanwhile by the model's own final response
