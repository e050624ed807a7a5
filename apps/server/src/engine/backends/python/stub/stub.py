"""The Python-backend stub: runs one instance of a user's model.py for the studio's engine.

Started as `python3 -u stub.py` with fd 3 carrying frames from the engine to the model thread, fd 5 frames
this process handles at once, and fd 4 frames to the engine (see ../PROTOCOL.md); stdout and stderr are the
model's log. The model thread reads fd 3 itself and runs initialize/execute/finalize in order: an execute then
starts without a hop between threads. The main thread reads fd 5 (BLS replies and cancels), so a blocked
execute never stops the replies it may be waiting for.
"""

import os
import signal
import sys
import threading
import traceback

sys.dont_write_bytecode = True  # keep __pycache__ out of the studio's sources and the user's model folder

from _pb_stub.framing import FrameReader, FrameWriter, widen_pipe  # noqa: E402
from _pb_stub.host import ModelHost  # noqa: E402
from _pb_stub.request import _bls  # noqa: E402
from _pb_stub.runtime import RUNTIME  # noqa: E402

import triton_python_backend_utils  # noqa: E402,F401  (the module users import is loaded before model.py)

TASKS_FD, OUT_FD, AT_ONCE_FD = 3, 4, 5


def model_thread(host):
    """Runs the messages that call the user's code, one at a time, until finalize or end of input.

    If this thread fails outside the model's code (fd 4 closed, a broken frame), the process exits, so the
    engine sees a crashed instance instead of one that never answers.
    """
    try:
        serve(host, FrameReader(TASKS_FD))
    except BaseException:
        traceback.print_exc()
        _exit(1)
    _exit(0)


def serve(host, source):
    while True:
        frame = source.read()
        if frame is None:
            return
        header, blob = frame
        kind = header.get("type")
        if kind == "execute":
            host.execute(header, blob)
        elif kind == "init":
            host.init(header)
        elif kind == "auto_complete":
            host.auto_complete(header)
        elif kind == "finalize":
            host.finalize()
            return
        else:
            unknown(kind, TASKS_FD)


def unknown(kind, fd):
    RUNTIME.send({"type": "log", "level": "error", "message": f"stub: unknown message type {kind!r} on fd {fd}",
                  "file": __file__, "line": 0})


def _exit(code):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # the model's own non-daemon threads must not keep an abandoned instance alive


def die_with_parent():
    """Asks the kernel to kill this process when the process that started it (the studio's stub spawner) ends.

    The stub otherwise ends when it reads EOF on fd 5, which a process stopped (SIGSTOP) or stuck outside Python
    never reads: without this it outlived a server whose spawner was killed, adopted by init.
    """
    parent = os.environ.pop("STUDIO_STUB_PARENT", "")
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        return
    if parent and os.getppid() != int(parent):
        _exit(1)  # the spawner ended before the request to the kernel was made


def main():
    die_with_parent()
    for fd in (TASKS_FD, OUT_FD, AT_ONCE_FD):
        widen_pipe(fd)
    RUNTIME.writer = FrameWriter(OUT_FD)
    bls = _bls()
    worker = threading.Thread(target=model_thread, args=(ModelHost(),), name="pb-model", daemon=True)
    worker.start()
    source = FrameReader(AT_ONCE_FD)
    while True:
        frame = source.read()
        if frame is None:
            break
        header, blob = frame
        kind = header.get("type")
        if kind == "bls_response":
            bls.deliver(header, blob)
        elif kind == "cancel":
            RUNTIME.cancel(header.get("id"))
        elif kind == "shm_release":
            RUNTIME.regions.release(header.get("offsets") or [])
        else:
            unknown(kind, AT_ONCE_FD)
    bls.fail_all("the engine closed the connection to this model instance")
    _exit(0)


if __name__ == "__main__":
    main()
