"""Frames over the two pipes: u32le header length, u32le blob length, JSON header, blob.

Tensors in a header are {name, datatype, shape, offset, nbytes}, their bytes at blob[offset:offset+nbytes]
with offsets aligned to 8. Reading fills one writable bytearray per frame, so input arrays are views of it.
"""

import json
import os
import struct
import threading

_HEAD = struct.Struct("<II")
_F_SETPIPE_SZ = 1031  # Linux fcntl: a bigger pipe buffer means fewer wake-ups per large tensor
_PADDING = bytes(8)
_IOV_MAX = 512


def widen_pipe(fd, size=1 << 20):
    """Asks for a 1 MiB pipe buffer; keeps the default where the system refuses."""
    try:
        import fcntl
        fcntl.fcntl(fd, _F_SETPIPE_SZ, size)
    except (OSError, ImportError, ValueError):
        pass


def _read_exact(raw, buffer):
    view = memoryview(buffer)
    got = 0
    while got < len(view):
        n = raw.readinto(view[got:])
        if not n:
            return False
        got += n
    return True


def read_frame(raw):
    """The next (header dict, blob bytearray) from a binary stream, or None at end of stream."""
    head = bytearray(8)
    if not _read_exact(raw, head):
        return None
    header_len, blob_len = _HEAD.unpack(head)
    header_bytes = bytearray(header_len)
    blob = bytearray(blob_len)
    if not _read_exact(raw, header_bytes) or not _read_exact(raw, blob):
        return None
    return json.loads(header_bytes), blob


def tensor_layout(tensors):
    """Places wire tensors (name, datatype, shape, buffer) in one blob.

    Returns (descriptions for the header, list of buffers making up the blob, blob length).
    """
    described, parts, size = [], [], 0
    for name, datatype, shape, buffer in tensors:
        nbytes = memoryview(buffer).nbytes
        described.append({"name": name, "datatype": datatype, "shape": list(shape), "offset": size, "nbytes": nbytes})
        if nbytes:
            parts.append(buffer)
        pad = -nbytes % 8
        if pad:
            parts.append(_PADDING[:pad])
        size += nbytes + pad
    return described, parts, size


class FrameWriter:
    """Writes whole frames to a file descriptor; one lock, since responses are sent from any thread."""

    def __init__(self, fd):
        self._fd = fd
        self._lock = threading.Lock()

    def send(self, header, tensors=None):
        """Sends `header`; `tensors` maps header keys to lists of (name, datatype, shape, buffer)."""
        parts, size = [], 0
        if tensors:
            header = dict(header)
            for key, items in tensors.items():
                described, key_parts, key_size = tensor_layout(items)
                for d in described:
                    d["offset"] += size
                header[key] = described
                parts.extend(key_parts)
                size += key_size
        body = json.dumps(header, separators=(",", ":")).encode("utf-8")
        buffers = [_HEAD.pack(len(body), size), body, *parts]
        with self._lock:
            _write_all(self._fd, buffers)


def _write_all(fd, buffers):
    views = [v for v in (memoryview(b).cast("B") for b in buffers) if len(v)]
    while views:
        written = os.writev(fd, views[:_IOV_MAX])
        while written and views:
            first = views[0]
            if written >= len(first):
                written -= len(first)
                views.pop(0)
            else:
                views[0] = first[written:]
                written = 0
