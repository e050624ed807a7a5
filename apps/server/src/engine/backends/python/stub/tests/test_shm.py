"""The stub's side of the region files (PROTOCOL.md, "Large tensors") on real files: names removed at once,
reads that are the model's own copies, first-fit ranges freed by Node's release, and the pipe (None) when a
region is full or its file cannot grow."""

import os
import shutil
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from _pb_stub.shm import Regions  # noqa: E402


class RegionsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pb-shm-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.paths = [os.path.join(self.dir, name) for name in ("to_python", "from_python")]
        self.node_bytes = np.arange(3 * 4096, dtype=np.uint8)
        with open(self.paths[0], "wb") as f:
            f.write(self.node_bytes.tobytes())
        open(self.paths[1], "wb").close()

    def regions(self, max_bytes=1 << 20):
        regions = Regions()
        spec = {"to_python": self.paths[0], "from_python": self.paths[1], "min_bytes": 4096, "max_bytes": max_bytes}
        self.assertTrue(regions.open(spec))
        self.assertEqual(os.listdir(self.dir), [])
        return regions

    def test_reads_a_copy_that_later_writes_never_change(self):
        regions = self.regions()
        got = regions.read(4096, 4096)
        self.assertTrue(np.array_equal(got, self.node_bytes[4096:8192]))
        got_fd = os.open(f"/proc/self/fd/{regions._in._fd}", os.O_RDWR)  # Node writing the range again
        os.pwrite(got_fd, bytes(4096), 4096)
        os.close(got_fd)
        self.assertTrue(np.array_equal(got, self.node_bytes[4096:8192]))
        with self.assertRaises(Exception):
            regions.read(8192, 8192)  # past the file's end

    def test_a_shaped_array_is_placed_as_its_bytes(self):
        regions = self.regions()
        array = np.arange(2048, dtype=np.float32).reshape(32, 64)
        at = regions.place(array, array.nbytes)
        with open(f"/proc/self/fd/{regions._out_fd}", "rb") as f:
            f.seek(at)
            self.assertEqual(f.read(array.nbytes), array.tobytes())

    def test_places_large_buffers_first_fit_and_reuses_released_ranges(self):
        regions = self.regions()
        self.assertIsNone(regions.place(bytes(100)))  # small: the frame carries it
        first = regions.place(np.full(5000, 7, np.uint8))
        second = regions.place(np.full(4096, 9, np.uint8))
        self.assertEqual((first, second), (0, 8192))
        with open(f"/proc/self/fd/{regions._out_fd}", "rb") as f:
            written = f.read()
        self.assertEqual(written[:5000], bytes([7]) * 5000)
        self.assertEqual(written[8192:8192 + 4096], bytes([9]) * 4096)
        regions.release([first])
        self.assertEqual(regions.place(np.zeros(4096, np.uint8)), 0)

    def test_a_full_region_or_a_file_that_cannot_grow_means_the_pipe(self):
        regions = self.regions(max_bytes=8192)
        self.assertEqual(regions.place(np.zeros(8192, np.uint8)), 0)
        self.assertIsNone(regions.place(np.zeros(4096, np.uint8)))
        regions.release([0])
        read_only = os.open(os.path.join(self.dir, "ro"), os.O_RDONLY | os.O_CREAT, 0o600)
        self.addCleanup(os.close, read_only)
        regions._out_fd, regions._out_size = read_only, 0  # posix_fallocate fails as on a full tmpfs
        self.assertIsNone(regions.place(np.zeros(4096, np.uint8)))
        self.assertEqual(regions._used, [])

    def test_missing_files_mean_pipes_only(self):
        regions = Regions()
        spec = {"to_python": os.path.join(self.dir, "nope"), "from_python": self.paths[1]}
        self.assertFalse(regions.open(spec))
        self.assertFalse(regions.active)
        self.assertIsNone(regions.place(bytes(1 << 20)))


if __name__ == "__main__":
    unittest.main()
