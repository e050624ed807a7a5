"""The stub runs a plain model: initialize args, add/sub, dynamic batches, sequences, BYTES, finalize."""

import json
import time
import unittest

import numpy as np

from peer import StubPeer

ADD_SUB = """
    import json
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def initialize(self, args):
            self.args = args
            config = json.loads(args["model_config"])
            self.out_dtype = pb_utils.triton_string_to_numpy(
                pb_utils.get_output_config_by_name(config, "OUTPUT0")["data_type"])

        def execute(self, requests):
            responses = []
            for request in requests:
                a = pb_utils.get_input_tensor_by_name(request, "INPUT0").as_numpy()
                b = pb_utils.get_input_tensor_by_name(request, "INPUT1").as_numpy()
                responses.append(pb_utils.InferenceResponse(output_tensors=[
                    pb_utils.Tensor("OUTPUT0", (a + b).astype(self.out_dtype)),
                    pb_utils.Tensor("OUTPUT1", (a - b).astype(self.out_dtype)),
                ]))
            return responses
"""
CONFIG = {"backend": "python", "max_batch_size": 8,
          "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [4]},
                    {"name": "INPUT1", "data_type": "TYPE_FP32", "dims": [4]}],
          "output": [{"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [4]},
                     {"name": "OUTPUT1", "data_type": "TYPE_FP32", "dims": [4]}]}


class AddSubTest(unittest.TestCase):
    def setUp(self):
        self.peer = StubPeer(ADD_SUB)
        self.addCleanup(self.peer.close)
        ready = self.peer.init(CONFIG, name="add_sub", instance="add_sub_0_0")
        self.assertEqual(ready["type"], "ready", ready.header)

    def test_add_sub(self):
        a = np.array([[1, 2, 3, 4]], np.float32)
        b = np.array([[0.5, 0.5, 0.5, 0.5]], np.float32)
        self.peer.execute(1, [{"inputs": [("INPUT0", a), ("INPUT1", b)]}])
        responses, executed = self.peer.collect(1, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual(len(responses), 1)
        out = responses[0].tensors()
        np.testing.assert_array_equal(out["OUTPUT0"], a + b)
        np.testing.assert_array_equal(out["OUTPUT1"], a - b)
        self.assertEqual(responses[0]["outputs"][0]["datatype"], "FP32")
        self.assertTrue(responses[0]["final"])
        self.assertIsNone(responses[0]["error"])

    def test_executed_says_when_execute_ran(self):
        before = time.monotonic_ns()
        a = np.array([[1, 2, 3, 4]], np.float32)
        self.peer.execute(1, [{"inputs": [("INPUT0", a), ("INPUT1", a)]}])
        _, executed = self.peer.collect(1, 1)
        began, returned = executed["ns"]
        # The monotonic clock Node's process.hrtime reads: a trace's COMPUTE_INPUT_END and COMPUTE_OUTPUT_START.
        self.assertLessEqual(before, began)
        self.assertLessEqual(began, returned)
        self.assertLessEqual(returned, time.monotonic_ns())

    def test_dynamic_batch_gets_separate_requests(self):
        reqs = [{"inputs": [("INPUT0", np.full((n, 4), n, np.float32)), ("INPUT1", np.ones((n, 4), np.float32))]}
                for n in (1, 2, 3)]
        self.peer.execute(7, reqs)
        responses, executed = self.peer.collect(7, 3)
        self.assertIsNone(executed["error"])
        by_request = {r["request"]: r.tensors() for r in responses}
        for i, n in enumerate((1, 2, 3)):  # each request keeps its own batch size: nothing was concatenated
            self.assertEqual(by_request[i]["OUTPUT0"].shape, (n, 4))
            np.testing.assert_array_equal(by_request[i]["OUTPUT0"], np.full((n, 4), n + 1, np.float32))

    def test_requested_outputs_prune_the_rest(self):
        a = np.zeros((1, 4), np.float32)
        self.peer.execute(2, [{"inputs": [("INPUT0", a), ("INPUT1", a)], "requested_output_names": ["OUTPUT1"]}])
        responses, _ = self.peer.collect(2, 1)
        self.assertEqual(list(responses[0].tensors()), ["OUTPUT1"])


SEQUENCE = """
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def initialize(self, args):
            self.totals = {}

        def execute(self, requests):
            responses = []
            for request in requests:
                cid = request.correlation_id()
                if request.flags() & pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START:
                    self.totals[cid] = 0
                self.totals[cid] += int(pb_utils.get_input_tensor_by_name(request, "X").as_numpy()[0])
                out = np.array([self.totals[cid]], np.int64)
                if request.flags() & pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END:
                    del self.totals[cid]
                responses.append(pb_utils.InferenceResponse([
                    pb_utils.Tensor("SUM", out),
                    pb_utils.Tensor("META", np.array([str(cid), request.request_id(), request.parameters()],
                                                     dtype=object))]))
            return responses
"""


class SequenceTest(unittest.TestCase):
    def test_flags_and_correlation_ids(self):
        peer = StubPeer(SEQUENCE)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        steps = [("s1", 1, 5), (42, 1, 7), ("s1", 0, 1), (42, 2, 3), ("s1", 2, 10)]
        expected = {"s1": [5, 6, 16], 42: [7, 10]}
        got = {"s1": [], 42: []}
        for eid, (cid, flags, x) in enumerate(steps):
            peer.execute(eid, [{"inputs": [("X", np.array([x], np.int32))], "correlation_id": cid, "flags": flags,
                                "request_id": f"r{eid}", "parameters": json.dumps({"k": eid})}])
            responses, executed = peer.collect(eid, 1)
            self.assertIsNone(executed["error"])
            out = responses[0].tensors()
            got[cid].append(int(out["SUM"][0]))
            self.assertEqual(out["META"].tolist(), [str(cid).encode(), f"r{eid}".encode(),
                                                     json.dumps({"k": eid}).encode()])
        self.assertEqual(got, expected)


BYTES_ECHO = """
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def execute(self, requests):
            responses = []
            for request in requests:
                text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
                assert text.dtype == np.object_, text.dtype
                upper = np.array([t.upper() for t in text.reshape(-1)], dtype=object).reshape(text.shape)
                lengths = np.array([len(t) for t in text.reshape(-1)], np.int32).reshape(text.shape)
                responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("UPPER", upper),
                                                             pb_utils.Tensor("LEN", lengths)]))
            return responses

        def finalize(self):
            pb_utils.Logger.log_info("finalized")
            print("bye from finalize")
"""


class BytesAndFinalizeTest(unittest.TestCase):
    def test_bytes_round_trip_and_finalize(self):
        peer = StubPeer(BYTES_ECHO)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        text = np.array([[b"hello", b""], ["w\u00f6rld".encode(), b"\x00\xff bin"]], dtype=object)
        peer.execute(1, [{"inputs": [("TEXT", text)]}])
        responses, executed = peer.collect(1, 1)
        self.assertIsNone(executed["error"])
        out = responses[0].tensors()
        self.assertEqual(out["UPPER"].shape, (2, 2))
        self.assertEqual(out["UPPER"].tolist(), [[b"HELLO", b""], ["w\u00f6rld".encode().upper(), b"\x00\xff BIN"]])
        self.assertEqual(out["LEN"].tolist(), [[5, 0], [6, 6]])
        peer.send({"type": "finalize"})
        self.assertEqual(peer.expect("finalized").header, {"type": "finalized"})
        self.assertIsNone(peer.next())  # the stub exits after finalize
        self.assertEqual(peer.proc.wait(timeout=10), 0)
        self.assertIn("bye from finalize", peer.stdout_text())
        self.assertEqual([(l["level"], l["message"]) for l in peer.logs], [("info", "finalized")])
        self.assertTrue(peer.logs[0]["file"].endswith("model.py"))


class InitializeArgsTest(unittest.TestCase):
    def test_initialize_gets_the_documented_keys(self):
        peer = StubPeer("""
            import json
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                def initialize(self, args):
                    pb_utils.Logger.log_info(json.dumps(args, sort_keys=True))

                def execute(self, requests):
                    return [pb_utils.InferenceResponse([]) for _ in requests]
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init({"max_batch_size": 0}, name="argy", instance="argy_0_1")["type"], "ready")
        args = json.loads(peer.logs[0]["message"])
        self.assertEqual(sorted(args), ["model_config", "model_instance_device_id", "model_instance_kind",
                                        "model_instance_name", "model_name", "model_repository", "model_version"])
        self.assertEqual(json.loads(args["model_config"])["name"], "argy")
        self.assertEqual(args["model_instance_name"], "argy_0_1")
        self.assertEqual(peer.logs[0]["line"], 7)


if __name__ == "__main__":
    unittest.main()
