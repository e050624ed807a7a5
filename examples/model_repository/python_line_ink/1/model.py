"""Mean ink probability inside each box."""

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            prob = pb_utils.get_input_tensor_by_name(request, "prob").as_numpy()
            boxes = pb_utils.get_input_tensor_by_name(request, "boxes").as_numpy().astype(np.int64)
            ink = np.array([prob[y0:y1, x0:x1].mean() for x0, y0, x1, y1 in boxes], dtype=np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("ink", ink)]))
        return responses
