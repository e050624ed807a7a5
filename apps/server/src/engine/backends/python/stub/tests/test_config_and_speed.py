"""auto_complete_config through pb_utils.ModelConfig; and the stub's speed, measured and printed
(a small frame's round trip, a 4.9 MB FP32 tensor each way), never asserted."""

import statistics
import sys
import time
import unittest

import numpy as np

from peer import StubPeer

AUTO = """
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        @staticmethod
        def auto_complete_config(config):
            names = [i["name"] for i in config.as_dict()["input"]]
            if "IN" not in names:
                config.add_input({"name": "IN", "data_type": "TYPE_FP32", "dims": [4], "optional": True})
            config.add_input({"name": "IN2", "data_type": "TYPE_INT64", "dims": [-1]})
            config.add_output({"name": "OUT", "data_type": "TYPE_FP32", "dims": [4]})
            config.set_max_batch_size(8)
            config.set_dynamic_batching()
            config.set_model_transaction_policy({"decoupled": True})
            return config

        def execute(self, requests):
            return None
"""


class AutoCompleteTest(unittest.TestCase):
    def auto_complete(self, source, config):
        peer = StubPeer(source)
        self.addCleanup(peer.close)
        peer.send({"type": "auto_complete", "model_file": peer.model_file, "config": config})
        return peer.next()

    def test_fills_in_the_signature_and_policy(self):
        done = self.auto_complete(AUTO, {"name": "auto"})
        self.assertEqual(done["type"], "auto_completed", done.header)
        self.assertEqual(done["config"], {
            "name": "auto", "max_batch_size": 8,
            "input": [{"name": "IN", "data_type": "TYPE_FP32", "dims": [4], "optional": True},
                      {"name": "IN2", "data_type": "TYPE_INT64", "dims": [-1]}],
            "output": [{"name": "OUT", "data_type": "TYPE_FP32", "dims": [4]}],
            "dynamic_batching": {}, "model_transaction_policy": {"decoupled": True}})

    def test_conflicts_with_the_config_fail(self):
        done = self.auto_complete(AUTO, {"name": "auto", "input": [{"name": "IN2", "data_type": "TYPE_FP32",
                                                                     "dims": [-1]}]})
        self.assertEqual(done["type"], "failed")
        self.assertIn("the configuration gives input 'IN2' data_type TYPE_FP32, auto_complete_config gives TYPE_INT64",
                      done["message"])
        self.assertIn("in auto_complete_config", done["traceback"])
        done = self.auto_complete(AUTO, {"name": "auto", "sequence_batching": {}})
        self.assertIn("already schedules with 'sequence_batching'", done["message"])
        done = self.auto_complete(AUTO, {"name": "auto", "max_batch_size": 16})
        self.assertIn("max_batch_size 8, but the configuration already has the larger max_batch_size 16", done["message"])

    def test_must_return_a_model_config(self):
        done = self.auto_complete("""
            class TritonPythonModel:
                @staticmethod
                def auto_complete_config(config):
                    return config.as_dict()
        """, {"name": "x"})
        self.assertEqual(done["type"], "failed")
        self.assertIn("must return a pb_utils.ModelConfig, returned dict", done["message"])

    def test_without_auto_complete_config_the_config_comes_back(self):
        done = self.auto_complete("class TritonPythonModel:\n    pass\n", {"name": "plain", "backend": "python"})
        self.assertEqual(done["config"], {"name": "plain", "backend": "python", "max_batch_size": 0,
                                          "input": [], "output": []})


IDENTITY = """
    import time
    import numpy as np
    import triton_python_backend_utils as pb_utils

    class TritonPythonModel:
        def execute(self, requests):
            started = time.monotonic()
            responses = [pb_utils.InferenceResponse([pb_utils.Tensor("Y", r.inputs()[0].as_numpy()),
                                                     pb_utils.Tensor("T", np.array([started, 0.0]))])
                         for r in requests]
            for r in responses:
                r.output_tensors()[1].as_numpy()[1] = time.monotonic()
            return responses
"""


class SpeedTest(unittest.TestCase):
    def test_round_trip_and_large_tensor(self):
        peer = StubPeer(IDENTITY)
        self.addCleanup(peer.close)
        self.assertEqual(peer.init()["type"], "ready")
        small = np.arange(16, dtype=np.float32)
        trips = []
        for eid in range(300):
            t0 = time.monotonic()
            peer.execute(eid, [{"inputs": [("X", small)]}])
            responses, executed = peer.collect(eid, 1)
            trips.append(executed.arrived - t0)
            np.testing.assert_array_equal(responses[0].tensors()["Y"], small)
        big = np.random.default_rng(0).random(1_225_000, dtype=np.float32)  # 4.9 MB
        ins, outs = [], []
        for eid in range(1000, 1020):
            t0 = time.monotonic()
            peer.execute(eid, [{"inputs": [("X", big)]}])
            responses, executed = peer.collect(eid, 1)
            out = responses[0].tensors()
            np.testing.assert_array_equal(out["Y"], big)
            started, returned = out["T"]
            ins.append(started - t0)
            outs.append(responses[0].arrived - returned)
        mb = big.nbytes / 1e9
        print(f"\nstub speed: small round trip {statistics.median(trips) * 1e3:.3f} ms (median of {len(trips)}); "
              f"{big.nbytes / 1e6:.1f} MB FP32 in {mb / statistics.median(ins):.2f} GB/s, "
              f"out {mb / statistics.median(outs):.2f} GB/s (medians of {len(ins)})", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
