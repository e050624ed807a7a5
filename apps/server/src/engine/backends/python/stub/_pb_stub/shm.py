"""Region files for large tensors (PROTOCOL.md, "Large tensors").

Node makes two files in /dev/shm per instance and names them in `init`: it writes large `execute` inputs into
one, this process writes large outputs and BLS inputs into the other; a frame then carries only the offset.
Both sides use pread/pwrite on descriptors kept open (Node cannot mmap; a write into pages the file already
holds costs no fresh page), and the names are removed as soon as this process has opened them.
"""

import os
import threading

import numpy as np

from .errors import TritonModelException

_PAGE = 4096


class Regions:
    def __init__(self):
        self.active = False
        self.min_bytes = 0
        self._in = None
        self._out = None
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
        self._in, self._out = fds
        self.min_bytes = int(spec.get("min_bytes", 1 << 16))
        self._max = int(spec.get("max_bytes", 0))
        self.active = True
        return True

    def read(self, offset, nbytes):
        """A new uint8 array holding Node's region bytes [offset, offset + nbytes): the model's own copy, which
        later requests never change."""
        if not self.active:
            raise TritonModelException("a tensor lies in a region this process was not given")
        out = np.empty(nbytes, np.uint8)
        view = memoryview(out)
        done = 0
        while done < nbytes:
            n = os.preadv(self._in, [view[done:]], offset + done)
            if n == 0:
                raise TritonModelException(f"region bytes {offset}..{offset + nbytes} lie past the region's end")
            done += n
        return out

    def place(self, buffer):
        """Writes a large flat buffer into this process's region: its offset, or None (the pipe carries it:
        small, the region full or its file system out of space)."""
        view = memoryview(buffer)
        nbytes = view.nbytes
        if not self.active or nbytes < self.min_bytes:
            return None
        with self._lock:
            at = self._take(nbytes)
        if at is None:
            return None
        try:
            done = 0
            while done < nbytes:
                done += os.pwritev(self._out, [view[done:]], at + done)
        except OSError:
            self.release([at])
            return None
        return at

    def release(self, offsets):
        """Node has read these ranges (`shm_release`): they can be written again."""
        with self._lock:
            gone = set(offsets)
            self._used = [r for r in self._used if r[0] not in gone]

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
