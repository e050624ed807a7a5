"""Decoupled models: responses from the execute thread, from a worker thread after execute returned,
from an `async def execute`; cancellation seen by the model; the non-decoupled sender rules."""

import threading
import time
import unittest

import numpy as np

from peer import StubPeer

DECOUPLED = {"model_transaction_policy": {"decoupled": True}}

REPEAT = """
    import threading
    import time
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def execute(self, requests):
            for request in requests:
                n = int(pb_utils.get_input_tensor_by_name(request, "N").as_numpy()[0])
                sender = request.get_response_sender()
                if n >= 0:
                    for i in range(n):  # from the execute thread
                        sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([i], np.int32))]))
                    sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                else:  # from a worker thread, after execute returned
                    threading.Thread(target=self.later, args=(sender, -n)).start()
            return None

        def later(self, sender, n):
            time.sleep(0.2)
            for i in range(n):
                last = i == n - 1
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([100 + i], np.int32))]),
                            flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL if last else 0)
"""


class DecoupledTest(unittest.TestCase):
    def setUp(self):
        self.peer = StubPeer(REPEAT)
        self.addCleanup(self.peer.close)
        self.assertEqual(self.peer.init(DECOUPLED)["type"], "ready")

    def test_sends_from_the_execute_thread(self):
        self.peer.execute(1, [{"inputs": [("N", np.array([3], np.int32))]}, {"inputs": [("N", np.array([0], np.int32))]}])
        responses, executed = self.peer.collect(1, 2)
        self.assertIsNone(executed["error"])
        first = [r for r in responses if r["request"] == 0]
        self.assertEqual([int(r.tensors()["OUT"][0]) for r in first[:3]], [0, 1, 2])
        self.assertEqual([r["final"] for r in first], [False, False, False, True])
        self.assertIsNone(first[3]["outputs"])  # the flags-only final
        second = [r for r in responses if r["request"] == 1]
        self.assertEqual([(r["final"], r["outputs"]) for r in second], [(True, None)])

    def test_sends_from_a_thread_after_execute_returned(self):
        self.peer.execute(2, [{"inputs": [("N", np.array([-2], np.int32))]}])
        executed = self.peer.expect("executed")  # execute returned before any response
        self.assertIsNone(executed["error"])
        later = [self.peer.expect("response"), self.peer.expect("response")]
        self.assertEqual([int(r.tensors()["OUT"][0]) for r in later], [100, 101])
        self.assertEqual([r["final"] for r in later], [False, True])


class AsyncDecoupledTest(unittest.TestCase):
    def test_async_execute_runs_in_the_background_and_sees_cancel(self):
        peer = StubPeer("""
            import asyncio
            import numpy as np
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                async def execute(self, requests):
                    for request in requests:
                        sender = request.get_response_sender()
                        sent = 0
                        while not sender.is_cancelled() and sent < 500:
                            sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("I", np.array([sent], np.int64))]))
                            sent += 1
                            await asyncio.sleep(0.01)
                        error = pb_utils.TritonError("stopped", pb_utils.TritonError.CANCELLED) if request.is_cancelled() else None
                        sender.send(pb_utils.InferenceResponse(error=error), flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init(DECOUPLED)["type"], "ready")
        peer.execute(5, [{"inputs": []}])
        frames = [peer.next() for _ in range(4)]
        self.assertIn("executed", [f["type"] for f in frames])  # returned while the coroutine still runs
        peer.send({"type": "cancel", "id": 5})
        while True:
            frame = peer.expect("response")
            if frame["final"]:
                break
        self.assertEqual(frame["error"], {"message": "stopped", "code": "CANCELLED"})


class AsyncExecuteTest(unittest.TestCase):
    def test_async_def_execute_non_decoupled(self):
        peer = StubPeer("""
            import asyncio
            import numpy as np
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                async def execute(self, requests):
                    await asyncio.sleep(0.01)
                    return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", request.inputs()[0].as_numpy() * 2)])
                            for request in requests]
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        peer.execute(1, [{"inputs": [("X", np.arange(3, dtype=np.float32))]}])
        responses, executed = peer.collect(1, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0].tensors()["Y"].tolist(), [0, 2, 4])
        self.assertEqual(len(responses), 1)


class CancelTest(unittest.TestCase):
    def test_is_cancelled_turns_true_while_execute_runs(self):
        peer = StubPeer("""
            import time
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                def execute(self, requests):
                    deadline = time.monotonic() + 10
                    while not all(r.is_cancelled() for r in requests) and time.monotonic() < deadline:
                        time.sleep(0.005)
                    return [pb_utils.InferenceResponse(error=pb_utils.TritonError(
                        "cancelled" if r.is_cancelled() else "never cancelled", pb_utils.TritonError.CANCELLED))
                        for r in requests]
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        peer.execute(3, [{"inputs": []}, {"inputs": []}])
        time.sleep(0.1)
        peer.send({"type": "cancel", "id": 3})
        responses, executed = peer.collect(3, 2)
        self.assertIsNone(executed["error"])
        self.assertEqual([r["error"]["message"] for r in responses], ["cancelled", "cancelled"])


class EarlyCancelTest(unittest.TestCase):
    def test_a_cancel_that_overtakes_its_queued_execute_still_counts(self):
        peer = StubPeer("""
            import time
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                def execute(self, requests):
                    time.sleep(0.3)
                    return [pb_utils.InferenceResponse(error=pb_utils.TritonError(str(r.is_cancelled()))) for r in requests]
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        peer.execute(1, [{"inputs": []}])
        peer.execute(2, [{"inputs": []}])  # waits behind execute 1 on the model thread
        peer.send({"type": "cancel", "id": 2})
        first, _ = peer.collect(1, 1)
        second, _ = peer.collect(2, 1)
        self.assertEqual([first[0]["error"]["message"], second[0]["error"]["message"]], ["False", "True"])


class NonDecoupledSenderTest(unittest.TestCase):
    def test_sender_rules_of_a_default_model(self):
        peer = StubPeer("""
            import numpy as np
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                def execute(self, requests):
                    problems = []
                    sender = requests[0].get_response_sender()
                    try:
                        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    except pb_utils.TritonModelException as e:
                        problems.append(str(e))
                    sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("P", np.array(problems, dtype=object))]))
                    try:
                        sender.send(pb_utils.InferenceResponse([]))
                    except pb_utils.TritonModelException as e:
                        pb_utils.Logger.log_warn(str(e))
                    sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    return None
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        peer.execute(1, [{"inputs": []}])
        responses, executed = peer.collect(1, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual([r["final"] for r in responses], [False, True])
        # Triton's words (python_backend src/response_sender.cc).
        self.assertEqual(responses[0].tensors()["P"][0],
                         b"Unable to send response. Non-decoupled model cannot send complete final before sending a response.")
        self.assertEqual(peer.logs[0]["message"],
                         "Unable to send response. Non-decoupled model cannot send more than one response.")
        self.assertEqual(peer.logs[0]["level"], "warn")

    def test_a_closed_sender_and_a_bad_flag_raise_tritons_words(self):
        peer = StubPeer("""
            import numpy as np
            import triton_python_backend_utils as pb_utils

            class TritonPythonModel:
                def execute(self, requests):
                    sender = requests[0].get_response_sender()
                    problems = []
                    for flags in (7, 0):
                        try:
                            sender.send(flags=flags)
                        except pb_utils.TritonModelException as e:
                            problems.append(str(e))
                    sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    try:
                        sender.send(pb_utils.InferenceResponse([]))
                    except pb_utils.TritonModelException as e:
                        problems.append(str(e))
                    for p in problems:
                        pb_utils.Logger.log_warn(p)
                    return None
        """)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init(DECOUPLED)["type"], "ready")
        peer.execute(1, [{"inputs": []}])
        peer.collect(1, 1)
        self.assertEqual([l["message"] for l in peer.logs], [
            "Unable to send response. Unsupported flag provided.",
            "Inference Response object must be provided when the response flags is set to zero.",
            "Unable to send response. Response sender has been closed.",
        ])


if __name__ == "__main__":
    unittest.main()
