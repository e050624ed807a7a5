"""BLS: exec, async_exec and decoupled exec answered by the peer as the engine would; errors come back
as response errors; a BLS call outside execute is refused."""

import json
import unittest

import numpy as np

from peer import StubPeer

BLS_MODEL = """
    import asyncio
    import json
    import numpy as np
    import triton_python_backend_utils as pb_utils

    def call(x, model="adder"):
        return pb_utils.InferenceRequest(model_name=model, requested_output_names=["Y"],
                                         inputs=[pb_utils.Tensor("X", x)], correlation_id="c-1",
                                         flags=pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START,
                                         parameters={"p": 1}, timeout=5)

    class TritonPythonModel:
        def initialize(self, args):
            try:
                call(np.zeros(1, np.float32)).exec()
                self.init_error = "none"
            except pb_utils.TritonModelException as e:
                self.init_error = str(e)

        async def execute(self, requests):
            outputs = []
            for request in requests:
                mode = json.loads(request.parameters())["mode"]
                x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
                if mode == "sync":
                    # the model name as an element of a BYTES tensor (bytes), as Triton's BLS example passes it
                    response = call(x, np.array([b"adder"], dtype=object)[0]).exec()
                    result = np.array(["error: " + response.error().message()], dtype=object) if response.has_error() else \\
                        pb_utils.get_output_tensor_by_name(response, "Y").as_numpy()
                elif mode == "async":
                    responses = await asyncio.gather(*[call(x + i).async_exec() for i in range(3)])
                    result = np.concatenate([pb_utils.get_output_tensor_by_name(r, "Y").as_numpy() for r in responses])
                elif mode == "stream":
                    parts = [r.output_tensors() for r in call(x, "streamer").exec(decoupled=True)]
                    result = np.array([len(p) for p in parts] + [float(p[0].as_numpy()[0]) for p in parts if p],
                                      np.float32)
                elif mode == "stream_cancel":
                    stream = await call(x, "streamer").async_exec(decoupled=True)
                    first = next(stream)
                    stream.cancel()
                    rest = list(stream)
                    result = np.array([len(rest), rest[-1].has_error()], np.float32)
                else:
                    result = np.array([self.init_error], dtype=object)
                outputs.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", result)]))
            return outputs
"""


class BlsTest(unittest.TestCase):
    def setUp(self):
        self.peer = StubPeer(BLS_MODEL)
        self.addCleanup(self.peer.close)
        self.assertEqual(self.peer.init()["type"], "ready")

    def start(self, eid, mode, x):
        self.peer.execute(eid, [{"inputs": [("X", np.array(x, np.float32))], "parameters": json.dumps({"mode": mode})}])

    def answer(self, call, y=None, error=None, final=True):
        tensors = {"outputs": [("Y", np.asarray(y, np.float32))]} if y is not None else None
        header = {"type": "bls_response", "call": call, "error": error, "final": final}
        if tensors is None:
            header["outputs"] = []
        self.peer.send(header, tensors)

    def test_exec(self):
        self.start(1, "sync", [1, 2])
        bls = self.peer.expect("bls")
        self.assertEqual({k: bls[k] for k in ("model_name", "model_version", "requested_output_names",
                                              "correlation_id", "flags", "timeout", "decoupled")},
                         {"model_name": "adder", "model_version": -1, "requested_output_names": ["Y"],
                          "correlation_id": "c-1", "flags": 1, "timeout": 5, "decoupled": False})
        self.assertEqual(json.loads(bls["parameters"]), {"p": 1})
        x = bls.tensors("inputs")["X"]
        self.answer(bls["call"], x + 10)
        responses, executed = self.peer.collect(1, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0].tensors()["OUT"].tolist(), [11, 12])

    def test_exec_error_is_a_response_error(self):
        self.start(2, "sync", [1])
        bls = self.peer.expect("bls")
        self.answer(bls["call"], error={"message": "model 'adder' is not in the repository", "code": "NOT_FOUND"})
        responses, executed = self.peer.collect(2, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0].tensors()["OUT"].tolist(), [b"error: model 'adder' is not in the repository"])

    def test_async_exec_has_several_calls_in_flight(self):
        self.start(3, "async", [1])
        calls = [self.peer.expect("bls") for _ in range(3)]  # all three sent before any answer
        for bls in reversed(calls):
            self.answer(bls["call"], bls.tensors("inputs")["X"] * 2)
        responses, executed = self.peer.collect(3, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0].tensors()["OUT"].tolist(), [2, 4, 6])

    def test_decoupled_exec_iterates_until_final(self):
        self.start(4, "stream", [5])
        bls = self.peer.expect("bls")
        self.assertTrue(bls["decoupled"])
        self.answer(bls["call"], [7], final=False)
        self.answer(bls["call"], [8], final=False)
        self.answer(bls["call"])  # the last one carries no outputs
        responses, executed = self.peer.collect(4, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0].tensors()["OUT"].tolist(), [1, 1, 0, 7, 8])

    def test_cancel_of_a_decoupled_call(self):
        self.start(5, "stream_cancel", [5])
        bls = self.peer.expect("bls")
        self.answer(bls["call"], [1], final=False)
        self.assertEqual(self.peer.expect("bls_cancel").header, {"type": "bls_cancel", "call": bls["call"]})
        self.answer(bls["call"], error={"message": "cancelled", "code": "CANCELLED"})
        responses, executed = self.peer.collect(5, 1)
        self.assertIsNone(executed["error"])
        self.assertEqual(responses[0].tensors()["OUT"].tolist(), [1, 1])

    def test_bls_in_initialize_is_refused(self):
        self.start(6, "init", [0])
        responses, _ = self.peer.collect(6, 1)
        self.assertIn(b"only be made while executing", responses[0].tensors()["OUT"][0])


if __name__ == "__main__":
    unittest.main()
