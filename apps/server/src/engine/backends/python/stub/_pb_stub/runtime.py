"""The stub's state shared by the API objects: the writer to Node, the model's mode, open executes."""

import asyncio
import contextvars
import threading

from .limits import TensorLimits
from .shm import Regions


# The execute whose code is running (its id), in the model thread and in the coroutines an `async def execute`
# starts: a BLS call names it, so that cancelling one execute ends its calls and not those of another running on
# the same instance. Threads the model starts itself do not carry it (their calls name no execute).
CURRENT_EXECUTE = contextvars.ContextVar("pb_current_execute", default=None)


class RequestState:
    """What one incoming request's response sender has done so far."""

    __slots__ = ("execute_id", "index", "requested", "sent", "closed", "cancelled", "sender_taken", "lock")

    def __init__(self, execute_id, index, requested_output_names):
        self.execute_id = execute_id
        self.index = index
        self.requested = set(requested_output_names)
        self.sent = 0
        self.closed = False
        self.cancelled = False
        self.sender_taken = False
        self.lock = threading.Lock()


class Runtime:
    """One per process: set up by stub.py, read by triton_python_backend_utils."""

    def __init__(self):
        self.writer = None
        self.model_name = ""
        self.instance_name = ""
        self.decoupled = False
        self.initialized = False
        self.finalizing = False
        self._open = {}  # execute id -> [RequestState]
        self._early_cancels = []  # cancels that overtook their execute (still queued for the model thread)
        self._lock = threading.Lock()
        self._loop = None
        self.bls = None
        self.limits = TensorLimits()
        self.regions = Regions()

    def send(self, header, tensors=None):
        if self.writer is None:
            raise RuntimeError("triton_python_backend_utils is not running inside the studio's stub")
        self.writer.send(header, tensors)

    def open_execute(self, execute_id, states):
        with self._lock:
            self._open[execute_id] = states
            if execute_id in self._early_cancels:
                self._early_cancels.remove(execute_id)
                for state in states:
                    state.cancelled = True

    def close_execute_if_done(self, execute_id):
        """Forgets an execute once every request is final (a cancel for it is then moot)."""
        with self._lock:
            states = self._open.get(execute_id)
            if states is not None and all(s.closed for s in states):
                del self._open[execute_id]

    def cancel(self, execute_id):
        with self._lock:
            states = self._open.get(execute_id)
            if states is None:
                # Not started yet, or already over: remember a bounded number in case it is still queued.
                self._early_cancels = self._early_cancels[-255:] + [execute_id]
                return
        for state in states:
            state.cancelled = True

    def event_loop(self):
        """The asyncio loop that runs `async def execute` and async BLS, started on first use."""
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="pb-asyncio", daemon=True).start()
                self._loop = loop
            return self._loop


RUNTIME = Runtime()
