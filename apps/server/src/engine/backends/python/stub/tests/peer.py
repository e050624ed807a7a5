"""A test stand-in for the engine's side of PROTOCOL.md: spawns stub.py with fds 3, 4 and 5 as pipes.

Its framing is written separately from the stub's (_pb_stub/framing.py), from the protocol text, so a
mistake on one side is not mirrored on the other. test/python/run_model.py imports it too, to run the
compiler's generated model.py files on this stub in the integration tests.
"""

import fcntl
import json
import os
import queue
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import numpy as np

STUB = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "stub.py")
DTYPES = {"BOOL": np.bool_, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64,
          "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64, "FP16": np.float16,
          "FP32": np.float32, "FP64": np.float64}
NAME_OF = {np.dtype(v): k for k, v in DTYPES.items()}


def describe(items, parts, size):
    """Tensor descriptions for a header, appending each tensor's bytes (and padding to 8) to `parts`."""
    described = []
    for name, array in items:
        array = np.asarray(array)
        if array.dtype == object:
            data = memoryview(b"".join(struct.pack("<I", len(e)) + e for e in array.reshape(-1)))
            datatype = "BYTES"
        else:
            data = memoryview(np.ascontiguousarray(array).reshape(-1).view(np.uint8))  # a cast refuses empty shapes
            datatype = NAME_OF[array.dtype]
        described.append({"name": name, "datatype": datatype, "shape": list(array.shape),
                          "offset": size, "nbytes": data.nbytes})
        pad = -data.nbytes % 8
        parts += [data, bytes(pad)]
        size += data.nbytes + pad
    return described, size


def encode(header, tensors=None):
    """One frame as a list of buffers: tensors maps header keys to lists of (name, numpy array)."""
    header, parts, size = dict(header), [], 0
    for key, items in (tensors or {}).items():
        header[key], size = describe(items, parts, size)
    body = json.dumps(header).encode()
    return [struct.pack("<II", len(body), size), body, *parts]


def decode_tensors(described, blob):
    """{name: array} of a frame's tensor list, checking the protocol's alignment rule."""
    out = {}
    for t in described or []:
        assert t["offset"] % 8 == 0, f"offset {t['offset']} of {t['name']} is not a multiple of 8"
        raw = bytes(blob[t["offset"]:t["offset"] + t["nbytes"]])
        if t["datatype"] == "BYTES":
            items, i = [], 0
            while i < len(raw):
                (n,) = struct.unpack_from("<I", raw, i)
                items.append(raw[i + 4:i + 4 + n])
                i += 4 + n
            arr = np.empty(len(items), dtype=object)
            arr[:] = items
            out[t["name"]] = arr.reshape(t["shape"])
        else:
            out[t["name"]] = np.frombuffer(raw, dtype=DTYPES[t["datatype"]]).reshape(t["shape"])
    return out


class Frame:
    def __init__(self, header, blob):
        self.header, self.blob = header, blob
        self.arrived = time.monotonic()  # CLOCK_MONOTONIC: comparable with the stub process's clock

    def __getitem__(self, key):
        return self.header[key]

    def get(self, key, default=None):
        return self.header.get(key, default)

    def tensors(self, key="outputs"):
        return decode_tensors(self.header.get(key), self.blob)

    def __repr__(self):
        return f"Frame({self.header})"


def _read_exact(f, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = f.readinto(view[got:])
        if not k:
            return None
        got += k
    return buf


def _high_pipe():
    """A pipe whose fds are 10 or above, so dup2 onto 3, 4 and 5 in the child cannot clobber one of them."""
    r, w = os.pipe()
    high = (fcntl.fcntl(r, fcntl.F_DUPFD_CLOEXEC, 10), fcntl.fcntl(w, fcntl.F_DUPFD_CLOEXEC, 10))
    os.close(r)
    os.close(w)
    return high


class StubPeer:
    """One stub process running `model_source` (a model.py text) in a temporary model directory, removed by
    close(); or, given `model_file`, that existing file in place (its folder is the version directory)."""

    def __init__(self, model_source=None, python=None, model_file=None):
        if (model_source is None) == (model_file is None):
            raise TypeError("StubPeer takes exactly one of model_source and model_file")
        self._owns_dir = model_file is None
        if model_file is None:
            self.dir = tempfile.mkdtemp(prefix="pb-stub-test-")
            self.version_dir = os.path.join(self.dir, "1")
            os.makedirs(self.version_dir)
            self.model_file = os.path.join(self.version_dir, "model.py")
            with open(self.model_file, "w") as f:
                f.write(textwrap.dedent(model_source))
        else:
            self.model_file = os.path.abspath(model_file)
            self.version_dir = os.path.dirname(self.model_file)
            self.dir = os.path.dirname(self.version_dir)
        to_stub_r, self._to_stub = _high_pipe()
        self._from_stub, from_stub_w = _high_pipe()
        at_once_r, self._at_once = _high_pipe()
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1",
                   PYTHONPATH=os.pathsep.join([os.path.dirname(STUB), self.version_dir]))

        def wire_fds():  # in the child: the pipe ends become fds 3, 4 and 5
            os.dup2(to_stub_r, 3)
            os.dup2(from_stub_w, 4)
            os.dup2(at_once_r, 5)

        self.proc = subprocess.Popen([python or sys.executable, "-u", STUB], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=wire_fds,
                                     close_fds=False)
        os.close(to_stub_r)
        os.close(from_stub_w)
        os.close(at_once_r)
        self._in = os.fdopen(self._from_stub, "rb", buffering=0)
        self.frames = queue.Queue()
        self.logs = []
        self.stdout, self.stderr = [], []
        self._threads = [threading.Thread(target=self._read_frames, daemon=True),
                         threading.Thread(target=self._drain, args=(self.proc.stdout, self.stdout), daemon=True),
                         threading.Thread(target=self._drain, args=(self.proc.stderr, self.stderr), daemon=True)]
        for t in self._threads:
            t.start()

    def _read_frames(self):
        while True:
            head = _read_exact(self._in, 8)
            if head is None:
                self.frames.put(None)
                return
            hlen, blen = struct.unpack("<II", head)
            header = json.loads(_read_exact(self._in, hlen))
            blob = _read_exact(self._in, blen) if blen else b""
            if header.get("type") == "log":
                self.logs.append(header)
            else:
                self.frames.put(Frame(header, blob))

    @staticmethod
    def _drain(stream, sink):
        for chunk in iter(lambda: stream.read1(1 << 16), b""):
            sink.append(chunk)

    def send(self, header, tensors=None):
        """Sends a frame: BLS replies and cancels over fd 5, as the engine does, everything else over fd 3."""
        fd = self._at_once if header.get("type") in ("bls_response", "cancel") else self._to_stub
        self._write(encode(header, tensors), fd)

    def _write(self, buffers, fd):
        views = [memoryview(b).cast("B") for b in buffers if len(b)]
        while views:
            n = os.writev(fd, views)
            while views and n >= len(views[0]):
                n -= len(views.pop(0))
            if n:
                views[0] = views[0][n:]

    def next(self, timeout=20):
        """The next frame that is not a log line (None once the stub closed fd 4)."""
        try:
            return self.frames.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no frame from the stub within {timeout}s; stderr: {self.stderr_text()[-2000:]}")

    def expect(self, kind, timeout=20):
        frame = self.next(timeout)
        assert frame is not None, f"stub closed fd 4 while {kind} was expected; stderr: {self.stderr_text()[-2000:]}"
        assert frame["type"] == kind, f"expected {kind}, got {frame.header}"
        return frame

    def init(self, config=None, name="m", instance="m_0", limits=None):
        config = {"name": name, **(config or {})}
        args = {"model_config": json.dumps(config), "model_instance_kind": "CPU", "model_instance_name": instance,
                "model_instance_device_id": "0", "model_repository": self.dir, "model_version": "1",
                "model_name": name}
        self.send({"type": "init", "model_file": self.model_file, "args": args, "limits": limits})
        return self.next()

    def execute(self, eid, requests):
        """Sends an execute; requests are dicts with 'inputs': [(name, array)] plus any request fields."""
        parts, size, described = [], 0, []
        for i, r in enumerate(requests):
            r = dict(r)
            inputs, size = describe(r.pop("inputs", []), parts, size)
            described.append({"requested_output_names": [], "correlation_id": 0, "request_id": str(i),
                              "flags": 0, "parameters": "{}", "timeout": 0, **r, "inputs": inputs})
        body = json.dumps({"type": "execute", "id": eid, "requests": described}).encode()
        self._write([struct.pack("<II", len(body), size), body, *parts], self._to_stub)

    def collect(self, eid, count, timeout=20):
        """Frames of execute `eid` until `executed` has come and `count` requests had a final response."""
        responses, executed, finals = [], None, set()
        deadline = time.monotonic() + timeout
        while executed is None or (executed["error"] is None and len(finals) < count):
            frame = self.next(max(0.1, deadline - time.monotonic()))
            assert frame is not None, f"stub exited; stderr: {self.stderr_text()[-2000:]}"
            assert frame.get("id") == eid, f"frame of another execute: {frame.header}"
            if frame["type"] == "executed":
                executed = frame
            else:
                assert frame["type"] == "response", frame.header
                responses.append(frame)
                if frame["final"]:
                    finals.add(frame["request"])
        return responses, executed

    def stdout_text(self):
        return b"".join(self.stdout).decode(errors="replace")

    def stderr_text(self):
        return b"".join(self.stderr).decode(errors="replace")

    def close(self):
        """Closes fds 3 and 5 (the stub exits at end of input), waits, removes the model directory if it made it."""
        for fd in (self._to_stub, self._at_once):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for t in self._threads:
            t.join(timeout=5)
        self._in.close()
        self.proc.stdout.close()
        self.proc.stderr.close()
        if self._owns_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
