"""The Python-backend stub: runs one instance of a user's model.py for the studio's engine.

Started as `python3 -u stub.py` with fd 3 carrying frames from the engine and fd 4 frames to it
(see ../PROTOCOL.md); stdout and stderr are the model's log. This thread reads frames and answers BLS
replies and cancels at once; a model thread runs initialize/execute/finalize in order, so a blocked
execute never stops the replies it may be waiting for.
"""

import os
import queue
import sys
import threading
import traceback

sys.dont_write_bytecode = True  # keep __pycache__ out of the studio's sources and the user's model folder

from _pb_stub.framing import FrameWriter, read_frame, widen_pipe  # noqa: E402
from _pb_stub.host import ModelHost  # noqa: E402
from _pb_stub.request import _bls  # noqa: E402
from _pb_stub.runtime import RUNTIME  # noqa: E402

import triton_python_backend_utils  # noqa: E402,F401  (the module users import is loaded before model.py)

IN_FD, OUT_FD = 3, 4


def model_thread(host, tasks):
    """Runs the messages that call the user's code, one at a time, until finalize or end of input.

    If this thread fails outside the model's code (fd 4 closed, a broken frame), the process exits, so the
    engine sees a crashed instance instead of one that never answers.
    """
    try:
        serve(host, tasks)
    except BaseException:
        traceback.print_exc()
        _exit(1)


def serve(host, tasks):
    while True:
        header, blob = tasks.get()
        kind = header.get("type")
        if kind == "execute":
            host.execute(header, blob)
        elif kind == "init":
            host.init(header)
        elif kind == "auto_complete":
            host.auto_complete(header)
        elif kind == "finalize":
            host.finalize()
            _exit(0)
        else:
            RUNTIME.send({"type": "log", "level": "error", "message": f"stub: unknown message type {kind!r}",
                          "file": __file__, "line": 0})


def _exit(code):
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # the model's own non-daemon threads must not keep an abandoned instance alive


def main():
    for fd in (IN_FD, OUT_FD):
        widen_pipe(fd)
    RUNTIME.writer = FrameWriter(OUT_FD)
    bls = _bls()
    tasks = queue.Queue()
    worker = threading.Thread(target=model_thread, args=(ModelHost(), tasks), name="pb-model", daemon=True)
    worker.start()
    with os.fdopen(IN_FD, "rb", buffering=0) as source:
        while True:
            frame = read_frame(source)
            if frame is None:
                break
            header, blob = frame
            kind = header.get("type")
            if kind == "bls_response":
                bls.deliver(header, blob)
            elif kind == "cancel":
                RUNTIME.cancel(header.get("id"))
            else:
                tasks.put(frame)
    bls.fail_all("the engine closed the connection to this model instance")
    _exit(0)


if __name__ == "__main__":
    main()
