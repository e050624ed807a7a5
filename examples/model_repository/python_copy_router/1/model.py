"""Copy router: one feature tensor in, the same tensor out under one name per head."""

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.outputs = ["feat_a", "feat_b"]

    def execute(self, requests):
        # With dynamic batching several requests arrive together; each keeps its own batch and response.
        responses = []
        for request in requests:
            feat = pb_utils.get_input_tensor_by_name(request, "feat").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor(name, feat) for name in self.outputs]))
        return responses
