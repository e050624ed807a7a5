"""Region files for large tensors (PROTOCOL.md, "Large tensors").

Node makes two files in /dev/shm per instance and names them in `init`: it writes large `execute` inputs into
one, this process writes large outputs and BLS inputs into the other; a frame then carries only the offset.
Node uses pread/pwrite (it cannot map a file); this process maps both files, so a tensor crosses with one
memcpy (a third of a pread's time here) into pages that stay mapped from request to request. The names are
removed as soon as this process has opened them.
"""

import mmap
import os
import threading

import numpy as np

from .errors import TritonModelException

_PAGE = 4096
_POPULATE = getattr(mmap, "MAP_POPULATE", 0)  # map the pages at once, not one fault per first touch


class _Mapping:
    """A file mapped whole, mapped again (larger) when a range past the mapping's end is asked for."""

    def __init__(self, fd, writable):
        self._fd = fd
        self._prot = mmap.PROT_READ | (mmap.PROT_WRITE if writable else 0)
        self._array = np.empty(0, np.uint8)

    def span(self, end):
        """A uint8 array over at least the file's first `end` bytes (shorter when the file is shorter).

        An older mapping stays valid while a copy still uses it: both map the same pages of the file.
        """
        if len(self._array) < end:
            size = os.fstat(self._fd).st_size
            if size > len(self._array):
                mapped = mmap.mmap(self._fd, size, flags=mmap.MAP_SHARED | _POPULATE, prot=self._prot)
                self._array = np.frombuffer(mapped, np.uint8)
        return self._array


class Regions:
    def __init__(self):
        self.active = False
        self.min_bytes = 0
        self._in = None
        self._out = None
        self._out_fd = None
        self._out_size = 0
        self._max = 0
        self._used = []  # ranges of this process's region in use, sorted: [start, end)
        self._lock = threading.Lock()

    def open(self, spec):
        """Opens the files `init` names and removes their names; False (pipes only) when there are none or they
        cannot be opened."""
        if not spec:
            return False
        paths = (spec.get("to_python"), spec.get("from_python"))
        fds = []
        try:
            fds.append(os.open(paths[0], os.O_RDONLY | os.O_CLOEXEC))
            fds.append(os.open(paths[1], os.O_RDWR | os.O_CLOEXEC))
        except (OSError, TypeError):
            for fd in fds:
                os.close(fd)
            return False
        finally:
            for path in paths:
                try:
                    os.unlink(path)
                except (OSError, TypeError):
                    pass
        self._in, self._out = _Mapping(fds[0], False), _Mapping(fds[1], True)
        self._out_fd = fds[1]
        self.min_bytes = int(spec.get("min_bytes", 1 << 16))
        self._max = int(spec.get("max_bytes", 0))
        self.active = True
        return True

    def read(self, offset, nbytes):
        """A new uint8 array holding Node's region bytes [offset, offset + nbytes): the model's own copy, which
        later requests never change."""
        if not self.active:
            raise TritonModelException("a tensor lies in a region this process was not given")
        with self._lock:
            span = self._in.span(offset + nbytes)
        if offset < 0 or offset + nbytes > len(span):
            raise TritonModelException(f"region bytes {offset}..{offset + nbytes} lie past the region's end")
        return span[offset:offset + nbytes].copy()

    def place(self, buffer, nbytes=None):
        """Writes a large C-contiguous buffer (`nbytes` long, when the caller knows) into this process's region:
        its offset, or None (the pipe carries it: small, the region full or its file system out of space)."""
        if nbytes is None:
            nbytes = memoryview(buffer).nbytes
        if not self.active or nbytes < self.min_bytes:
            return None
        with self._lock:
            at = self._take(nbytes)
            if at is None:
                return None
            try:
                self._reserve(at + nbytes)
            except OSError:
                self._give(at)
                return None
            span = self._out.span(at + nbytes)
        span[at:at + nbytes] = np.frombuffer(buffer, np.uint8)
        return at

    def _reserve(self, end):
        """Makes this process's file at least `end` bytes long, its pages allocated (so writing through the
        mapping can never meet a full file system): doubling, up to the region's maximum."""
        if end <= self._out_size:
            return
        size = min(self._max, max(end, 2 * self._out_size))
        os.posix_fallocate(self._out_fd, 0, size)
        self._out_size = size

    def release(self, offsets):
        """Node has read these ranges (`shm_release`): they can be written again."""
        with self._lock:
            for offset in offsets:
                self._give(offset)

    def _give(self, offset):
        self._used = [r for r in self._used if r[0] != offset]

    def _take(self, nbytes):
        size = max(_PAGE, -(-nbytes // _PAGE) * _PAGE)
        at = 0
        index = 0
        for index, (start, end) in enumerate(self._used):
            if start - at >= size:
                break
            at = end
        else:
            index = len(self._used)
        if at + size > self._max:
            return None
        self._used.insert(index, (at, at + size))
        return at
