"""triton_python_backend_utils used directly, without a stub process: types, helpers, errors, metrics."""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import triton_python_backend_utils as pb_utils  # noqa: E402


class TypesTest(unittest.TestCase):
    def test_type_conversions(self):
        self.assertEqual(pb_utils.numpy_to_triton_type(np.float32), 11)
        self.assertEqual(pb_utils.numpy_to_triton_type(np.bool_), 1)
        self.assertEqual(pb_utils.numpy_to_triton_type(np.object_), 13)
        self.assertEqual(pb_utils.numpy_to_triton_type(np.bytes_), 13)
        self.assertIsNone(pb_utils.numpy_to_triton_type(np.complex64))
        self.assertIs(pb_utils.triton_to_numpy_type(8), np.int32)
        self.assertIs(pb_utils.triton_to_numpy_type(13), np.object_)
        self.assertIsNone(pb_utils.triton_to_numpy_type(99))
        self.assertIs(pb_utils.triton_string_to_numpy("TYPE_FP16"), np.float16)
        self.assertIs(pb_utils.triton_string_to_numpy("TYPE_STRING"), np.object_)
        with self.assertRaises(KeyError):
            pb_utils.triton_string_to_numpy("TYPE_NOPE")

    def test_datatype_names_hold_when_asked_again(self):
        from _pb_stub.dtypes import datatype_of
        cases = {np.dtype("<f4"): "FP32", np.dtype(">f4"): "FP32", np.dtype("S3"): "BYTES", np.dtype(object): "BYTES",
                 np.dtype("U4"): None, np.dtype("c8"): None, np.float64: "FP64", "int8": "INT8", np.bool_: "BOOL"}
        for _ in range(2):  # the second time from the cache
            self.assertEqual({d: datatype_of(d) for d in cases}, cases)

    def test_tensor(self):
        t = pb_utils.Tensor("x", np.arange(6, dtype=np.int16).reshape(2, 3).T)  # not C-contiguous
        self.assertEqual((t.name(), t.shape(), t.triton_dtype(), t.is_cpu()), ("x", [3, 2], 7, True))
        self.assertTrue(t.as_numpy().flags.c_contiguous)
        np.testing.assert_array_equal(np.from_dlpack(t), t.as_numpy())
        np.testing.assert_array_equal(pb_utils.Tensor.from_dlpack("y", t).as_numpy(), t.as_numpy())
        self.assertEqual(pb_utils.Tensor("l", [1, 2]).as_numpy().tolist(), [1, 2])
        with self.assertRaises(pb_utils.TritonModelException):
            pb_utils.Tensor("", np.zeros(1))
        with self.assertRaises(pb_utils.TritonModelException):
            pb_utils.Tensor("s", np.array(["text"]))  # numpy unicode is not BYTES, as in Triton

    def test_input_tensors_are_shaped_views_of_their_frame(self):
        from _pb_stub.tensor import Tensor
        blob = bytearray(np.arange(8, dtype=np.float32).tobytes() + bytes(8))
        t = Tensor._from_wire({"name": "x", "datatype": "FP32", "shape": [2, 3], "offset": 8, "nbytes": 24}, blob)
        self.assertEqual(t.as_numpy().tolist(), [[2, 3, 4], [5, 6, 7]])
        self.assertTrue(t.as_numpy().flags.writeable and t.as_numpy().flags.c_contiguous)
        self.assertIs(t.as_numpy().base, blob)
        scalar = Tensor._from_wire({"name": "s", "datatype": "INT32", "shape": [], "offset": 0, "nbytes": 4}, blob)
        self.assertEqual(scalar.as_numpy().shape, ())
        for bad in ({"offset": -8, "nbytes": 24, "shape": [6]}, {"offset": 0, "nbytes": -4, "shape": [1]},
                    {"offset": 24, "nbytes": 24, "shape": [6]}, {"offset": 0, "nbytes": 16, "shape": [-1, -4]},
                    {"offset": 0, "nbytes": 16, "shape": [2, 3]}):
            with self.assertRaises(pb_utils.TritonModelException, msg=bad):
                Tensor._from_wire({"name": "x", "datatype": "FP32", **bad}, blob)
        with self.assertRaisesRegex(pb_utils.TritonModelException, "unknown datatype 'FP8'"):
            Tensor._from_wire({"name": "x", "datatype": "FP8", "shape": [1], "offset": 0, "nbytes": 1}, blob)

    def test_bytes_serialisation(self):
        data = np.array([b"ab", "\u00e9", 7], dtype=object)
        raw = pb_utils.serialize_byte_tensor(data)
        self.assertEqual(raw.dtype, np.uint8)
        self.assertEqual(raw.tobytes(), b"\x02\x00\x00\x00ab\x02\x00\x00\x00\xc3\xa9\x01\x00\x00\x007")
        self.assertEqual(pb_utils.deserialize_bytes_tensor(raw.tobytes()).tolist(), [b"ab", b"\xc3\xa9", b"7"])
        self.assertIsNone(pb_utils.serialize_byte_tensor(np.zeros(2)))


class HelpersTest(unittest.TestCase):
    def test_lookups(self):
        config = {"input": [{"name": "a"}], "output": [{"name": "b", "dims": [2]}],
                  "model_transaction_policy": {"decoupled": True}}
        self.assertEqual(pb_utils.get_input_config_by_name(config, "a"), {"name": "a"})
        self.assertIsNone(pb_utils.get_input_config_by_name(config, "b"))
        self.assertEqual(pb_utils.get_output_config_by_name(config, "b")["dims"], [2])
        self.assertTrue(pb_utils.using_decoupled_model_transaction_policy(config))
        response = pb_utils.InferenceResponse([pb_utils.Tensor("b", np.zeros(2))], parameters={"k": True})
        self.assertEqual(pb_utils.get_output_tensor_by_name(response, "b").name(), "b")
        self.assertIsNone(pb_utils.get_output_tensor_by_name(response, "c"))
        self.assertEqual(response.parameters(), '{"k": true}')
        request = pb_utils.InferenceRequest(model_name="m", inputs=[pb_utils.Tensor("a", np.zeros(1))],
                                            requested_output_names=["b"])
        self.assertEqual(pb_utils.get_input_tensor_by_name(request, "a").name(), "a")
        self.assertEqual((request.correlation_id(), request.flags(), request.timeout()), (0, 0, 0))

    def test_argument_checks(self):
        with self.assertRaises(TypeError):
            pb_utils.InferenceResponse(["not a tensor"])
        with self.assertRaises(pb_utils.TritonModelException):
            pb_utils.InferenceResponse([], parameters={"k": 1.5})
        with self.assertRaises(pb_utils.TritonModelException):
            pb_utils.InferenceRequest(model_name="m", inputs=[], requested_output_names=[], correlation_id=1.5)
        with self.assertRaises(TypeError):
            pb_utils.InferenceRequest(inputs=[], requested_output_names=[])

    def test_errors(self):
        e = pb_utils.TritonError("gone", pb_utils.TritonError.NOT_FOUND)
        self.assertEqual((e.message(), e.code(), int(e.code())), ("gone", pb_utils.TritonError.NOT_FOUND, 2))
        self.assertEqual(pb_utils.TritonError("x").code(), pb_utils.TritonError.INTERNAL)
        self.assertEqual([int(getattr(pb_utils.TritonError, n)) for n in
                          ("UNKNOWN", "INTERNAL", "NOT_FOUND", "INVALID_ARG", "UNAVAILABLE", "UNSUPPORTED",
                           "ALREADY_EXISTS", "CANCELLED")], list(range(8)))
        self.assertTrue(issubclass(pb_utils.TritonModelException, Exception))

    def test_constants(self):
        self.assertEqual((pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL, pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START,
                          pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END), (1, 1, 2))

    def test_metrics(self):
        family = pb_utils.MetricFamily(name="requests", description="d", kind=pb_utils.MetricFamily.COUNTER)
        metric = family.Metric(labels={"model": "m"})
        metric.increment(3)
        self.assertEqual(metric.value(), 3)
        with self.assertRaises(ValueError):
            metric.increment(-1)
        gauge = pb_utils.MetricFamily(name="g", description="d", kind=pb_utils.MetricFamily.GAUGE).Metric()
        gauge.set(2.5)
        self.assertEqual(gauge.value(), 2.5)

    def test_metrics_are_reported_to_the_engine(self):
        from _pb_stub.runtime import RUNTIME

        class Capture:
            def __init__(self):
                self.headers = []

            def send(self, header, tensors=None):
                self.headers.append(header)

        capture = RUNTIME.writer = Capture()
        try:
            family = pb_utils.MetricFamily(name="lat_ns", description="Latency", kind=pb_utils.MetricFamily.HISTOGRAM)
            metric = family.Metric(labels={"model": "m"}, buckets=[1, 10])
            metric.observe(5)
            pb_utils.MetricFamily(name="lat_ns", description="again", kind=pb_utils.MetricFamily.HISTOGRAM)
        finally:
            RUNTIME.writer = None
        self.assertEqual(capture.headers, [
            {"type": "metric", "op": "family", "name": "lat_ns", "description": "Latency", "kind": "histogram"},
            {"type": "metric", "op": "create", "name": "lat_ns", "labels": {"model": "m"}, "buckets": [1.0, 10.0]},
            {"type": "metric", "op": "observe", "name": "lat_ns", "labels": {"model": "m"}, "value": 5.0},
            {"type": "metric", "op": "family", "name": "lat_ns", "description": "again", "kind": "histogram"},
        ])

    def test_metrics_refuse_what_the_registry_refuses(self):
        counter = pb_utils.MetricFamily(name="c_total", description="d", kind=pb_utils.MetricFamily.COUNTER)
        with self.assertRaisesRegex(ValueError, "already exists as a counter; it cannot also be a gauge"):
            pb_utils.MetricFamily(name="c_total", description="d", kind=pb_utils.MetricFamily.GAUGE)
        with self.assertRaisesRegex(ValueError, "are the server's own metrics"):
            pb_utils.MetricFamily(name="nv_inference_count", description="d", kind=pb_utils.MetricFamily.COUNTER)
        with self.assertRaisesRegex(ValueError, "not a valid metric family name"):
            pb_utils.MetricFamily(name="bad name", description="d", kind=pb_utils.MetricFamily.COUNTER)
        with self.assertRaisesRegex(ValueError, "not a valid label name"):
            counter.Metric(labels={"bad-label": "x"})
        with self.assertRaisesRegex(ValueError, "must be a string"):
            counter.Metric(labels={"n": 1})
        with self.assertRaisesRegex(ValueError, "must be finite"):
            counter.Metric().increment(float("inf"))
        histogram = pb_utils.MetricFamily(name="h", description="d", kind=pb_utils.MetricFamily.HISTOGRAM)
        with self.assertRaisesRegex(ValueError, "increasing order"):
            histogram.Metric(buckets=[10, 1])


class ModelConfigTest(unittest.TestCase):
    def test_add_input_merges_a_matching_entry(self):
        config = pb_utils.ModelConfig('{"name": "m", "input": [{"name": "a", "data_type": "TYPE_INVALID", "dims": []}]}')
        config.add_input({"name": "a", "data_type": "TYPE_FP32", "dims": [3]})
        self.assertEqual(config.as_dict()["input"], [{"name": "a", "data_type": "TYPE_FP32", "dims": [3]}])
        with self.assertRaises(ValueError):
            config.add_input({"name": "b", "data_type": "TYPE_FP32", "dims": [3], "shape": [3]})
        with self.assertRaises(ValueError):
            config.add_output({"name": "o", "dims": [3]})
        with self.assertRaises(ValueError):
            config.set_model_transaction_policy({"decoupled": True, "other": 1})


if __name__ == "__main__":
    unittest.main()
