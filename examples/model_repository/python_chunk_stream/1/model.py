"""Decoupled: one response per chunk of the input, sent from a worker thread after execute has returned."""

import json
import threading

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        if not pb_utils.using_decoupled_model_transaction_policy(config):
            raise pb_utils.TritonModelException("python_chunk_stream must be decoupled (model_transaction_policy)")
        self.chunk_size = int(config["parameters"]["chunk_size"]["string_value"])
        self.workers = []

    def execute(self, requests):
        for request in requests:
            signal = pb_utils.get_input_tensor_by_name(request, "signal").as_numpy().copy()
            worker = threading.Thread(target=self.stream, args=(request.get_response_sender(), signal))
            worker.start()
            self.workers.append(worker)
        return None  # a decoupled model answers through the response senders only

    def stream(self, sender, signal):
        starts = range(0, len(signal), self.chunk_size)
        for index, start in enumerate(starts):
            if sender.is_cancelled():
                break
            chunk = signal[start:start + self.chunk_size]
            sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("chunk", chunk),
                                                    pb_utils.Tensor("index", np.array([index], np.int32))]))
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)

    def finalize(self):
        for worker in self.workers:
            worker.join(timeout=5)
