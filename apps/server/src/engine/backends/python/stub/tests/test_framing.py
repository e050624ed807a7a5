"""The stub's framing on real pipes: frames cut anywhere or packed together, headers and blobs larger than the
read buffer, one buffer per blob, and the frames a thread holds going out in one write."""

import json
import os
import struct
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from _pb_stub.framing import FrameReader, FrameWriter, decode_header, encode_header, tensor_layout  # noqa: E402

import numpy as np  # noqa: E402


def raw_frame(header, blob=b""):
    """A frame as PROTOCOL.md lays it out, built here rather than by the code under test."""
    body = json.dumps(header).encode()
    return struct.pack("<II", len(body), len(blob)) + body + blob


def write_in_pieces(fd, data, sizes):
    """Writes `data` in pieces of the given sizes (cycled), from another thread, then closes `fd`."""
    def run():
        at, k = 0, 0
        try:
            while at < len(data):
                n = sizes[k % len(sizes)]
                os.write(fd, data[at:at + n])
                at, k = at + n, k + 1
        except BrokenPipeError:
            pass  # the reader stopped early: the test's assertions say so
        os.close(fd)
    t = threading.Thread(target=run)
    t.start()
    return t


def read_all(reader):
    frames = []
    while (frame := reader.read()) is not None:
        frames.append(frame)
    return frames


class FrameReaderTest(unittest.TestCase):
    def frames_through(self, data, sizes, buffer_size=1 << 16):
        r, w = os.pipe()
        writer = write_in_pieces(w, data, sizes)
        try:
            return read_all(FrameReader(r, buffer_size))
        finally:
            os.close(r)
            writer.join()

    def test_frames_cut_anywhere_or_packed_together_come_out_whole(self):
        sent = [({"type": "execute", "id": i, "pad": "x" * (i * 37)}, bytes(range(i % 256)) * (i + 1))
                for i in range(80)]
        data = b"".join(raw_frame(h, b) for h, b in sent)
        for sizes in ([1], [3, 7, 1], [len(data)], [4096]):
            for buffer_size in (100, 1 << 16):
                with self.subTest(sizes=sizes, buffer_size=buffer_size):
                    got = self.frames_through(data, sizes, buffer_size)
                    self.assertEqual([(h, bytes(b)) for h, b in got], sent)

    def test_headers_and_blobs_larger_than_the_read_buffer(self):
        big_header = {"type": "execute", "id": 1, "text": "é" * 5000}
        big_blob = os.urandom(300_000)
        data = raw_frame(big_header, big_blob) + raw_frame({"type": "cancel", "id": 2})
        got = self.frames_through(data, [65536, 10, 123457], buffer_size=64)
        self.assertEqual(got[0][0], big_header)
        self.assertEqual(bytes(got[0][1]), big_blob)
        self.assertEqual(got[1], ({"type": "cancel", "id": 2}, bytearray()))

    def test_every_blob_is_a_writable_buffer_of_its_own(self):
        data = raw_frame({"id": 1}, b"a" * 16) + raw_frame({"id": 2}, b"b" * 16)
        (_, first), (_, second) = self.frames_through(data, [len(data)])
        self.assertIsInstance(first, bytearray)
        first[:] = b"z" * 16
        self.assertEqual(bytes(second), b"b" * 16)

    def test_end_of_input_inside_a_frame_is_the_end(self):
        whole = raw_frame({"id": 1}, b"x" * 100)
        for cut in (4, 8 + 3, len(whole) - 1):
            with self.subTest(cut=cut):
                self.assertEqual(self.frames_through(whole + whole[:cut], [7]), [({"id": 1}, bytearray(b"x" * 100))])


class FrameWriterTest(unittest.TestCase):
    def setUp(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.r, False)
        self.writer = FrameWriter(self.w)

    def tearDown(self):
        os.close(self.r)
        os.close(self.w)

    def pending(self):
        try:
            return os.read(self.r, 1 << 20)
        except BlockingIOError:
            return b""

    def test_held_frames_leave_together_on_release_and_other_threads_are_not_held(self):
        self.writer.hold()
        self.writer.send({"type": "response", "id": 1}, {"outputs": [("Y", "UINT8", [3], b"abc")]})
        other = threading.Thread(target=self.writer.send, args=({"type": "log", "message": "meanwhile"},))
        other.start()
        other.join()
        self.writer.send({"type": "executed", "id": 1, "error": None})
        meanwhile = self.pending()
        self.writer.release()
        released = self.pending()
        self.assertEqual(frames_of(meanwhile), [({"type": "log", "message": "meanwhile"}, bytearray())])
        frames = frames_of(released)
        self.assertEqual([h["type"] for h, _ in frames], ["response", "executed"])
        self.assertEqual(frames[0][0]["outputs"], [{"name": "Y", "datatype": "UINT8", "shape": [3], "offset": 0,
                                                    "nbytes": 3}])
        self.assertEqual(bytes(frames[0][1][:3]), b"abc")
        self.writer.send({"type": "log", "message": "after"})
        self.assertNotEqual(self.pending(), b"", "a frame after release() is written at once")


class EncodeHeaderTest(unittest.TestCase):
    def test_headers_encode_as_json_dumps_compact_does(self):
        for header in ({"type": "executed", "id": 7, "error": None},
                       {"s": "caf\u00e9 \u2603 \"q\" \\ \n", "f": [1.5, float("nan"), float("inf"), -0.0, 1e300],
                        "nested": {"b": True, "k": [[], {}], 3: "int key"}, "big": 2 ** 70}):
            self.assertEqual(encode_header(header), json.dumps(header, separators=(",", ":")).encode("utf-8"))

    def test_a_header_holding_itself_fails_as_json_does(self):
        header = {"type": "log"}
        header["self"] = header
        with self.assertRaisesRegex(ValueError, "Circular reference"):
            encode_header(header)

    def test_what_json_cannot_encode_fails_as_json_does(self):
        with self.assertRaisesRegex(TypeError, "not JSON serializable"):
            encode_header({"type": "log", "message": object()})

    def test_long_texts_are_cut_until_the_header_fits(self):
        body = encode_header({"type": "log", "message": "x" * 5000}, max_bytes=1000)
        self.assertLessEqual(len(body), 1000)
        self.assertIn("more characters", json.loads(body)["message"])


class DecodeHeaderTest(unittest.TestCase):
    def test_headers_decode_as_json_loads_does(self):
        for text in ('{"type":"execute","id":3,"requests":[{"shape":[1,2],"p":"{}","x":null,"b":true}]}',
                     ' {"a": 1} \n', '{"s":"caf\\u00e9 \\" \\\\"}', '[1,2]', '"text"', '7'):
            self.assertEqual(decode_header(text), json.loads(text), text)

    def test_what_json_cannot_read_fails_as_json_does(self):
        for text in ('', '{"a":1} x', '{"a":1}{"b":2}', '{"a":', '{a:1}', 'NaNx'):
            with self.assertRaises(json.JSONDecodeError, msg=text) as caught:
                decode_header(text)
            with self.assertRaises(json.JSONDecodeError) as expected:
                json.loads(text)
            self.assertEqual(str(caught.exception), str(expected.exception))


class TensorLayoutTest(unittest.TestCase):
    def test_an_array_of_any_shape_and_dtype_lies_in_the_blob_as_its_bytes(self):
        arrays = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array(2.5), np.zeros((0, 4), np.int64),
                  np.array([[True, False]]), np.arange(5, dtype=np.float16)]
        described, parts, size = tensor_layout([(f"t{i}", "X", a.shape, a) for i, a in enumerate(arrays)])
        blob = b"".join(memoryview(p).cast("B").tobytes() for p in parts)
        self.assertEqual(len(blob), size)
        for d, a in zip(described, arrays):
            self.assertEqual(d["offset"] % 8, 0)
            self.assertEqual(blob[d["offset"]:d["offset"] + d["nbytes"]], a.tobytes())

    def test_a_frame_of_shaped_arrays_reads_back_whole_after_a_partial_write(self):
        r, w = os.pipe()
        big = np.arange(300_000, dtype=np.float32).reshape(600, 500)  # over a pipe's buffer: writev takes part
        reader = threading.Thread(target=lambda: got.append(read_all(FrameReader(r))))
        got = []
        reader.start()
        try:
            FrameWriter(w).send({"type": "response"}, {"outputs": [("Y", "FP32", big.shape, big)]})
        finally:
            os.close(w)
            reader.join()
            os.close(r)
        header, blob = got[0][0]
        self.assertEqual(bytes(blob), big.tobytes())


def frames_of(data):
    """The frames in `data` (small enough for a pipe's buffer), read back through a pipe."""
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    try:
        return read_all(FrameReader(r))
    finally:
        os.close(r)


if __name__ == "__main__":
    unittest.main()
