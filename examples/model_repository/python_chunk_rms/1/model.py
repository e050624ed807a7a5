"""RMS level of one chunk."""

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            chunk = pb_utils.get_input_tensor_by_name(request, "chunk").as_numpy()
            rms = np.sqrt(np.mean(np.square(chunk, dtype=np.float64))) if chunk.size else 0.0
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("rms", np.array([rms], np.float32))]))
        return responses
