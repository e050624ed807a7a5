"""BLS version of the text pipeline: early exit by returning an empty result, not by failing."""

import json

import numpy as np
import triton_python_backend_utils as pb_utils


def infer(model_name, inputs, outputs):
    """Runs one BLS request; a failed call becomes an exception naming the model."""
    request = pb_utils.InferenceRequest(model_name=model_name, inputs=inputs, requested_output_names=outputs)
    response = request.exec()
    if response.has_error():
        raise pb_utils.TritonModelException(f"{model_name}: {response.error().message()}")
    return [pb_utils.get_output_tensor_by_name(response, name) for name in outputs]


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.threshold = float(config["parameters"]["threshold"]["string_value"])

    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "image")
            (prob,) = infer("python_text_detect", [image], ["prob"])
            if prob.as_numpy().max(initial=0.0) < self.threshold:
                pb_utils.Logger.log_info("no text: returning empty boxes without running the later models")
                boxes = pb_utils.Tensor("boxes", np.zeros((0, 4), np.float32))
                ink = pb_utils.Tensor("ink", np.zeros((0,), np.float32))
            else:
                (boxes,) = infer("python_text_boxes", [prob], ["boxes"])
                (ink,) = infer("python_line_ink", [prob, boxes], ["ink"])
            responses.append(pb_utils.InferenceResponse([boxes, ink]))
        return responses
