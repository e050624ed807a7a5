"""Boxes the lines of text in python_text_detect's map; no text at all raises, ending the pipeline here."""

import json

import triton_python_backend_utils as pb_utils
from text_lines import line_boxes  # a module of this model's own directory, imported as Triton would


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.threshold = float(config["parameters"]["threshold"]["string_value"])

    def execute(self, requests):
        responses = []
        for request in requests:
            prob = pb_utils.get_input_tensor_by_name(request, "prob").as_numpy()
            boxes = line_boxes(prob, self.threshold)
            if len(boxes) == 0:
                raise pb_utils.TritonModelException(
                    f"no text found: no pixel of the {prob.shape[1]}x{prob.shape[0]} page reaches ink "
                    f"probability {self.threshold}, so the later steps are skipped")
            pb_utils.Logger.log_info(f"{len(boxes)} line(s) of text")
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("boxes", boxes)]))
        return responses
