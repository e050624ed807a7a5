"""Text-detection stand-in: ink probability per pixel (1 for black, 0 for white) from an RGB image."""

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "image").as_numpy()
            prob = 1.0 - image.astype(np.float32).mean(axis=2) / 255.0
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("prob", prob.astype(np.float32))]))
        return responses
