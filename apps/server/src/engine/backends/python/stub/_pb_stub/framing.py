"""Frames over the two pipes: u32le header length, u32le blob length, JSON header, blob.

Tensors in a header are {name, datatype, shape, offset, nbytes}, their bytes at blob[offset:offset+nbytes]
with offsets aligned to 8. Reading gives each frame a writable bytearray of its own, so input arrays are views
of it.
"""

import json
import os
import struct
import threading

_HEAD = struct.Struct("<II")
_F_SETPIPE_SZ = 1031  # Linux fcntl: a bigger pipe buffer means fewer wake-ups per large tensor
_PADDING = bytes(8)
_IOV_MAX = 512
_JSON = json.JSONEncoder(separators=(",", ":"))


def _one_shot_encoder():
    """_JSON's C encoder, made once: `JSONEncoder.encode` makes a new one for every call (~3 us of a small
    execute's two headers here); None where the C accelerator is missing."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    return make(None, _JSON.default, json.encoder.encode_basestring_ascii, None, ":", ",", False, False, True)


_C_ENCODER = _one_shot_encoder()
_DECODER = json.JSONDecoder()
_SCAN = _DECODER.scan_once


def decode_header(text):
    """A header's JSON object: the decoder's scanner called at once (`JSONDecoder.decode` wraps it in two Python
    calls and two whitespace matches, ~1 us here); any text it does not take whole goes through `decode`, which
    reads surrounding whitespace and raises JSONDecodeError with the position as before."""
    try:
        value, end = _SCAN(text, 0)
    except StopIteration:
        return _DECODER.decode(text)
    return value if end == len(text) else _DECODER.decode(text)


def _encode(value):
    """_JSON.encode(value), quicker; a header holding itself still fails with _JSON's "Circular reference"."""
    if _C_ENCODER is not None:
        try:
            return "".join(_C_ENCODER(value, 0))
        except RecursionError:
            pass  # not told apart from a cycle without the markers the one-shot encoder goes without
    return _JSON.encode(value)


def _cut_texts(value, keep):
    """`value` with every string over `keep` characters cut there, saying how much was cut."""
    if isinstance(value, str):
        return value if len(value) <= keep else f"{value[:keep]}… ({len(value) - keep} more characters)"
    if isinstance(value, dict):
        return {k: _cut_texts(v, keep) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut_texts(v, keep) for v in value]
    return value


def encode_header(header, max_bytes=None):
    """The header's JSON; over `max_bytes`, its long strings (a model's log line, an exception's message) are cut
    until it fits, as the engine refuses a larger header and restarts the instance that sent it."""
    body = _encode(header).encode("utf-8")
    keep = 1 << 16
    while max_bytes is not None and len(body) > max_bytes and keep >= 16:
        body = _encode(_cut_texts(header, keep)).encode("utf-8")
        keep //= 4
    return body


def widen_pipe(fd, size=1 << 20):
    """Asks for a 1 MiB pipe buffer; keeps the default where the system refuses."""
    try:
        import fcntl
        fcntl.fcntl(fd, _F_SETPIPE_SZ, size)
    except (OSError, ImportError, ValueError):
        pass


class FrameReader:
    """Reads frames from a file descriptor through one reused buffer, so a small frame costs one read call.

    Each frame's blob is still a bytearray of its own (input arrays are views of it and may outlive the
    frame); a blob larger than what one read brought in has its remainder read straight into it.
    """

    def __init__(self, fd, size=1 << 16):
        self._file = open(fd, "rb", buffering=0, closefd=False)
        self._buffer = bytearray(size)
        self._view = memoryview(self._buffer)
        self._start = 0
        self._end = 0

    def _fill(self, need):
        """Makes `need` bytes available from _start; False at end of input."""
        have = self._end - self._start
        if have >= need:
            return True
        if self._start + need > len(self._buffer):
            if need > len(self._buffer):
                self._buffer = bytearray(max(need, 2 * len(self._buffer)))
                fresh = memoryview(self._buffer)
                fresh[:have] = self._view[self._start:self._end]
                self._view = fresh
            else:
                self._view[:have] = bytes(self._view[self._start:self._end])
            self._start, self._end = 0, have
        while self._end - self._start < need:
            n = self._file.readinto(self._view[self._end:])
            if not n:
                return False
            self._end += n
        return True

    def read(self):
        """The next (header dict, blob bytearray), or None at end of input."""
        if not self._fill(8):
            return None
        header_len, blob_len = _HEAD.unpack_from(self._view, self._start)
        if not self._fill(8 + header_len):
            return None
        at = self._start + 8
        header = decode_header(str(self._view[at:at + header_len], "utf-8"))
        at += header_len
        blob = bytearray(blob_len)
        buffered = min(blob_len, self._end - at)
        blob[:buffered] = self._view[at:at + buffered]
        self._start = at + buffered
        if self._start == self._end:
            self._start = self._end = 0
        rest = memoryview(blob)[buffered:]
        while len(rest):
            n = self._file.readinto(rest)
            if not n:
                return None
            rest = rest[n:]
        return header, blob


def tensor_layout(tensors, place=None):
    """Places wire tensors (name, datatype, shape, buffer) in one blob, or those `place` takes in a region.

    Returns (descriptions for the header, list of buffers making up the blob, blob length).
    """
    described, parts, size = [], [], 0
    for name, datatype, shape, buffer in tensors:
        nbytes = memoryview(buffer).nbytes
        region = place(buffer, nbytes) if place is not None else None
        if region is not None:
            described.append({"name": name, "datatype": datatype, "shape": list(shape), "region": region,
                              "nbytes": nbytes})
            continue
        described.append({"name": name, "datatype": datatype, "shape": list(shape), "offset": size, "nbytes": nbytes})
        if nbytes:
            parts.append(buffer)
        pad = -nbytes % 8
        if pad:
            parts.append(_PADDING[:pad])
        size += nbytes + pad
    return described, parts, size


class FrameWriter:
    """Writes whole frames to a file descriptor; one lock, since responses are sent from any thread.

    Between `hold()` and `release()`, the frames the calling thread sends are kept and written together: an
    execute's responses and its `executed` then reach Node in one write, which wakes it once.
    """

    def __init__(self, fd):
        self._fd = fd
        self._lock = threading.Lock()
        self._local = threading.local()
        self.max_header = None  # the engine's limit on a frame's header, in bytes (its maxBodyBytes)
        self.place = None  # takes large tensors into a region file (shm.Regions.place) once `init` gave one

    def send(self, header, tensors=None):
        """Sends `header`; `tensors` maps header keys to lists of (name, datatype, shape, buffer)."""
        parts, size = [], 0
        if tensors:
            header = dict(header)
            for key, items in tensors.items():
                described, key_parts, key_size = tensor_layout(items, self.place)
                for d in described:
                    if "offset" in d:
                        d["offset"] += size
                header[key] = described
                parts.extend(key_parts)
                size += key_size
        body = encode_header(header, self.max_header)
        buffers = [_HEAD.pack(len(body), size), body, *parts]
        local = self._local
        held = getattr(local, "held", None)
        if held is not None:
            held.extend(buffers)
            local.held_bytes += 8 + len(body) + size
            return
        with self._lock:
            _write_all(self._fd, buffers, 8 + len(body) + size)

    def hold(self):
        """From now on, keeps the frames this thread sends until `release()`."""
        self._local.held = []
        self._local.held_bytes = 0

    def release(self):
        """Writes the frames kept since `hold()` at once."""
        held, self._local.held = self._local.held, None
        if held:
            with self._lock:
                _write_all(self._fd, held, self._local.held_bytes)


def _write_all(fd, buffers, total=None):
    """Writes flat byte buffers (bytes, 1-D uint8 arrays) in order: one writev unless the pipe takes less.

    `total` is their length in bytes when the caller knows it: a writev that took it all returns at once, without
    the views the partial case needs (~4 us of a small round trip's ~45 us in the stub, cProfile).
    """
    written = os.writev(fd, buffers) if len(buffers) <= _IOV_MAX else 0
    if written == total:
        return
    views = [v for v in (memoryview(b).cast("B") for b in buffers) if len(v)]
    while views:
        while written and views:
            first = views[0]
            if written >= len(first):
                written -= len(first)
                views.pop(0)
            else:
                views[0] = first[written:]
                written = 0
        if views:
            written = os.writev(fd, views[:_IOV_MAX])
