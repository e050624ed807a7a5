"""Hostile and broken models: each gets a clear error naming the user's file and line; the stub carries on."""

import time
import unittest

import numpy as np

from peer import StubPeer

RAISING = """
    import numpy as np
    import triton_python_backend_utils as pb_utils

    def helper(x):
        raise ValueError(f"bad input {x}")

    class TritonPythonModel:
        def execute(self, requests):
            x = int(pb_utils.get_input_tensor_by_name(requests[0], "X").as_numpy()[0])
            if x < 0:
                helper(x)
            if x == 0:
                return [pb_utils.InferenceResponse(error=pb_utils.TritonError("zero", pb_utils.TritonError.INVALID_ARG))
                        for _ in requests]
            if x == 1:
                return [pb_utils.InferenceResponse([]) for _ in requests] * 2
            if x == 2:
                return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([1.5, 2.5], np.float64))])
                        for _ in requests]
            if x == 3:
                return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([1j], np.complex64))])
                        for _ in requests]
            if x == 4:
                return ("not", "a list")
            if x == 5:
                return ["not a response" for _ in requests]
            if x == 6:
                return None
            if x == 8:
                import sys
                sys.exit(3)
            return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([x], np.float32))]) for _ in requests]
"""


class ExecuteErrorsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.peer = StubPeer(RAISING)
        assert cls.peer.init(name="hostile", instance="hostile_0_0")["type"] == "ready"

    @classmethod
    def tearDownClass(cls):
        cls.peer.close()

    def run_one(self, eid, x):
        self.peer.execute(eid, [{"inputs": [("X", np.array([x], np.int32))]}])
        return self.peer.collect(eid, 1)

    def test_exception_names_the_users_file_and_line(self):
        responses, executed = self.run_one(1, -3)
        self.assertEqual(responses, [])
        error = executed["error"]
        self.assertEqual(error["message"],
                         "Failed to process the request(s) for model 'hostile_0_0', message: ValueError: bad input -3")
        tb = error["traceback"]
        self.assertIn(f'File "{self.peer.model_file}", line 6, in helper', tb)
        self.assertIn(f'File "{self.peer.model_file}", line 12, in execute', tb)
        self.assertNotIn("_pb_stub", tb)
        self.assertNotIn("stub.py", tb)
        # the instance carries on
        responses, executed = self.run_one(2, 9)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0].tensors()["Y"].tolist(), [9.0])

    def test_error_response_is_not_an_execute_error(self):
        responses, executed = self.run_one(3, 0)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0]["error"], {"message": "zero", "code": "INVALID_ARG"})
        self.assertEqual(responses[0]["outputs"], [])
        self.assertTrue(responses[0]["final"])

    def test_wrong_number_of_responses(self):
        responses, executed = self.run_one(4, 1)
        self.assertEqual(responses, [])
        self.assertIn("execute returned 2 InferenceResponse object(s) for 1 InferenceRequest", executed["error"]["message"])

    def test_other_dtype_is_reported_as_sent(self):
        responses, executed = self.run_one(5, 2)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0]["outputs"][0]["datatype"], "FP64")  # the engine checks it against the config
        self.assertEqual(responses[0].tensors()["Y"].tolist(), [1.5, 2.5])

    def test_unsupported_dtype(self):
        _, executed = self.run_one(6, 3)
        self.assertIn("Tensor 'Y': numpy dtype complex64 is not supported", executed["error"]["message"])
        self.assertIn(f'File "{self.peer.model_file}", line 22', executed["error"]["traceback"])
        self.assertIn("triton_python_backend_utils.TritonModelException: Tensor 'Y'", executed["error"]["traceback"])

    def test_wrong_return_types(self):
        _, executed = self.run_one(7, 4)
        self.assertIn("execute must return a list of InferenceResponse, found type \"<class 'tuple'>\"".replace('"', "'"),
                      executed["error"]["message"])
        _, executed = self.run_one(8, 5)
        self.assertIn("found type '<class 'str'>'", executed["error"]["message"])
        _, executed = self.run_one(9, 6)
        self.assertIn("returned None and sent no response for request(s) [0]", executed["error"]["message"])

    def test_sys_exit_is_an_error_not_a_silent_death(self):
        _, executed = self.run_one(10, 8)
        self.assertTrue(executed["error"]["message"].endswith("message: SystemExit: 3"), executed["error"])
        responses, executed = self.run_one(11, 9)
        self.assertEqual(responses[0].tensors()["Y"].tolist(), [9.0])


class InitializeErrorTest(unittest.TestCase):
    def test_initialize_raises(self):
        peer = StubPeer("""
            class TritonPythonModel:
                def initialize(self, args):
                    self.table = {}
                    return self.table["missing"]
        """)
        self.addCleanup(peer.close)
        failed = peer.init(name="broken")
        self.assertEqual(failed["type"], "failed")
        self.assertEqual(failed["message"], "Failed to initialize model 'broken': KeyError: 'missing'")
        self.assertIn(f'File "{peer.model_file}", line 5, in initialize', failed["traceback"])
        self.assertNotIn("_pb_stub", failed["traceback"])

    def test_syntax_error_and_missing_class(self):
        for source, fragment in (("def broken(:\n    pass\n", "SyntaxError"),
                                 ("x = 1\n", "defines no class TritonPythonModel")):
            peer = StubPeer(source)
            try:
                failed = peer.init(name="bad")
                self.assertEqual(failed["type"], "failed")
                self.assertIn(fragment, failed["message"])
            finally:
                peer.close()


class PrintTest(unittest.TestCase):
    def test_megabytes_of_print_do_not_block_the_protocol(self):
        peer = StubPeer("""
            import numpy as np
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                def execute(self, requests):
                    line = "x" * 1023
                    for i in range(4096):  # 4 MiB, far beyond a pipe's buffer
                        print(line)
                    return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([1], np.int8))])
                            for _ in requests]
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        peer.execute(1, [{"inputs": []}])
        responses, executed = peer.collect(1, 1, timeout=60)
        self.assertIsNone(executed["error"])
        deadline = time.monotonic() + 20
        while len(peer.stdout_text()) < 4096 * 1024 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(len(peer.stdout_text()), 4096 * 1024)


if __name__ == "__main__":
    unittest.main()
