"""BLS calls in flight: a `bls` frame goes to Node, its `bls_response` frames come back here."""

import concurrent.futures
import itertools
import queue
import threading

from .errors import TritonError
from .runtime import CURRENT_EXECUTE
from .tensor import Tensor


def _response_from_frame(header, blob):
    from .response import InferenceResponse  # response imports runtime, which must not import this first
    outputs = [Tensor._from_wire(t, blob) for t in header.get("outputs") or []]
    error = header.get("error")
    return InferenceResponse(outputs, TritonError.from_wire(error) if error else None, header.get("parameters"))


class ResponseIterator:
    """The responses of a decoupled BLS call, in order; the last one may carry no outputs."""

    def __init__(self, call_id, send_cancel):
        self._call_id = call_id
        self._send_cancel = send_cancel
        self._queue = queue.Queue()
        self._seen = []
        self._index = 0
        self._finished = False
        self.first = concurrent.futures.Future()

    def _push(self, response, final):
        if not self.first.done():
            self.first.set_result(self)
        self._queue.put((response, final))

    def __iter__(self):
        if self._finished and self._index >= len(self._seen):
            self._index = 0  # a finished stream can be walked again from the start
        return self

    def __next__(self):
        if self._index < len(self._seen):
            self._index += 1
            return self._seen[self._index - 1]
        if self._finished:
            raise StopIteration
        response, final = self._queue.get()
        self._finished = final
        self._seen.append(response)
        self._index += 1
        return response

    def cancel(self):
        """Asks Node to cancel the call; the called model decides whether it stops."""
        if not self._finished:
            self._send_cancel(self._call_id)


class BlsCalls:
    """Numbers the calls, sends them, and routes each reply to the waiting caller."""

    def __init__(self, send):
        self._send = send
        self._ids = itertools.count(1)
        self._pending = {}
        self._lock = threading.Lock()

    def start(self, header, tensors, decoupled):
        """Sends a call; returns a Future of the InferenceResponse or a ResponseIterator (decoupled)."""
        call_id = next(self._ids)
        waiter = ResponseIterator(call_id, self._cancel) if decoupled else concurrent.futures.Future()
        with self._lock:
            self._pending[call_id] = waiter
        execute = CURRENT_EXECUTE.get()
        named = {} if execute is None else {"execute": execute}
        self._send({**header, **named, "type": "bls", "call": call_id, "decoupled": decoupled}, tensors)
        return waiter

    def refused(self, message, decoupled):
        """A call refused before it was sent (an input over the server's limits): its only response is the error."""
        response = _error_response(message, TritonError.INVALID_ARG)
        if not decoupled:
            waiter = concurrent.futures.Future()
            waiter.set_result(response)
            return waiter
        waiter = ResponseIterator(None, lambda _call_id: None)
        waiter._push(response, True)
        return waiter

    def _cancel(self, call_id):
        self._send({"type": "bls_cancel", "call": call_id})

    def deliver(self, header, blob):
        """Called on the reader thread for each bls_response."""
        call_id = header.get("call")
        final = bool(header.get("final", True))
        with self._lock:
            waiter = self._pending.get(call_id)
            if waiter is not None and (final or isinstance(waiter, concurrent.futures.Future)):
                del self._pending[call_id]
        if waiter is None:
            return
        try:
            response = _response_from_frame(header, blob)
        except Exception as exc:  # a malformed reply fails this call, never the reader
            response = _error_response(f"BLS call {call_id}: unreadable reply: {exc}")
            final = True
        if isinstance(waiter, ResponseIterator):
            waiter._push(response, final)
        else:
            waiter.set_result(response)

    def fail_all(self, message):
        """Node went away: every waiting call gets an error response."""
        with self._lock:
            pending, self._pending = self._pending, {}
        for waiter in pending.values():
            response = _error_response(message)
            if isinstance(waiter, ResponseIterator):
                waiter._push(response, True)
            elif not waiter.done():
                waiter.set_result(response)


def _error_response(message, code=TritonError.UNAVAILABLE):
    from .response import InferenceResponse
    return InferenceResponse(error=TritonError(message, code))
