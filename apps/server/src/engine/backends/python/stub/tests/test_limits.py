"""The server's tensor limits, given in `init`: a tensor over them is refused in the stub, never written to fd 4."""

import unittest

import numpy as np

from peer import StubPeer

LIMITS = {"maxTensorElements": 1000, "maxBodyBytes": 5000}
DECOUPLED = {"model_transaction_policy": {"decoupled": True}}

# N elements of FP32 (or, with N < 0, -N BYTES elements of 100 bytes each).
SIZED = """
    import numpy as np
    import triton_python_backend_utils as pb_utils

    def sized(n):
        if n < 0:
            return np.array([b"x" * 100] * -n, dtype=object)
        return np.zeros(n, np.float32)

    class TritonPythonModel:
        def execute(self, requests):
            return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", sized(int(r.inputs()[0].as_numpy()[0])))])
                    for r in requests]
"""

STREAM = """
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def execute(self, requests):
            for request in requests:
                sender = request.get_response_sender()
                for n in request.inputs()[0].as_numpy():
                    try:
                        sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.zeros(int(n), np.float32))]))
                    except pb_utils.TritonModelException as exc:
                        raised = np.array([str(exc).encode()], dtype=object)
                        sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("RAISED", raised)]))
                sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            return None
"""

BLS = """
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def execute(self, requests):
            out = []
            for request in requests:
                n = int(request.inputs()[0].as_numpy()[0])
                call = pb_utils.InferenceRequest(model_name="other", requested_output_names=["Z"],
                                                 inputs=[pb_utils.Tensor("X", np.zeros(n, np.float32))])
                reply = call.exec()
                text = reply.error().message() if reply.has_error() else "no error"
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("E", np.array([text.encode()], dtype=object))]))
            return out
"""

LOUD = """
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def execute(self, requests):
            n = int(requests[0].inputs()[0].as_numpy()[0])
            pb_utils.Logger.log_info("y" * n)
            if n:
                raise pb_utils.TritonModelException("x" * n)
            return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.zeros(1, np.float32))]) for _ in requests]
"""


def size(n):
    return {"inputs": [("N", np.array([n], np.int64))]}


class LimitsTest(unittest.TestCase):
    def start(self, source, limits=LIMITS, config=None, name="big"):
        peer = StubPeer(source)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init(config, name=name, instance=f"{name}_0_0", limits=limits)["type"], "ready")
        return peer

    def test_an_output_over_the_element_limit_fails_its_request_alone(self):
        peer = self.start(SIZED)
        peer.execute(1, [size(1001), size(1000)])
        responses, executed = peer.collect(1, 2)
        self.assertIsNone(executed["error"])
        by_request = {r["request"]: r for r in responses}
        self.assertEqual(by_request[0]["error"]["message"],
                         "output 'Y' of model 'big' has 1001 elements, over the limit maxTensorElements=1000")
        self.assertEqual(by_request[0]["outputs"], [])
        self.assertEqual(len(by_request[0].blob), 0)
        self.assertEqual(by_request[1].tensors()["Y"].shape, (1000,))

    def test_a_bytes_output_over_the_byte_limit_is_refused(self):
        peer = self.start(SIZED)
        peer.execute(2, [size(-60)])
        responses, _ = peer.collect(2, 1)
        self.assertEqual(responses[0]["error"]["message"],
                         "output 'Y' of model 'big' has 6240 bytes, over the limit maxBodyBytes=5000")

    def test_without_limits_nothing_is_refused(self):
        peer = self.start(SIZED, limits=None)
        peer.execute(3, [size(5000)])
        responses, _ = peer.collect(3, 1)
        self.assertEqual(responses[0].tensors()["Y"].shape, (5000,))

    def test_a_decoupled_send_over_the_limit_sends_the_error_and_raises_in_the_model(self):
        peer = self.start(STREAM, config=DECOUPLED)
        peer.execute(4, [{"inputs": [("N", np.array([3, 2000, 4], np.int64))]}])
        responses, executed = peer.collect(4, 1)
        self.assertIsNone(executed["error"])
        message = "output 'Y' of model 'big' has 2000 elements, over the limit maxTensorElements=1000"
        self.assertEqual(responses[0].tensors()["Y"].shape, (3,))
        self.assertEqual((responses[1]["error"]["message"], responses[1]["final"]), (message, False))
        self.assertEqual(responses[2].tensors()["RAISED"][0].decode(), message)
        self.assertEqual(responses[3].tensors()["Y"].shape, (4,))
        self.assertEqual((responses[4]["final"], len(responses)), (True, 5))

    def test_a_bls_input_over_the_limit_is_an_error_response_and_never_sent(self):
        peer = self.start(BLS)
        peer.execute(5, [size(1001)])
        responses, _ = peer.collect(5, 1)
        self.assertEqual(responses[0].tensors()["E"][0].decode(),
                         "input 'X' of a BLS request to model 'other' has 1001 elements, "
                         "over the limit maxTensorElements=1000")

    def test_a_log_line_and_an_error_longer_than_a_header_may_be_are_cut_to_fit(self):
        peer = self.start(LOUD)
        peer.execute(6, [size(20000)])
        _, executed = peer.collect(6, 0)
        log = peer.logs[-1]["message"]
        self.assertRegex(log, r"^y+… \(\d+ more characters\)$")
        self.assertLess(len(log), 5000)
        self.assertRegex(executed["error"]["message"], r"^Failed to process .* message: x+… \(\d+ more characters\)$")
        self.assertLess(len(executed["error"]["message"]), 5000)
        # The stub goes on: a frame over the engine's header limit would have restarted it.
        peer.execute(7, [size(0)])
        responses, executed = peer.collect(7, 1)
        self.assertEqual((executed["error"], responses[0].tensors()["Y"].shape), (None, (1,)))


if __name__ == "__main__":
    unittest.main()
