"""Per-stream state in a dict keyed by correlation id; START resets a stream, END forgets it."""

import numpy as np
import triton_python_backend_utils as pb_utils

START = pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START
END = pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END


class TritonPythonModel:
    def initialize(self, args):
        self.instance = args["model_instance_name"]
        self.streams = {}  # correlation id -> {"sum": array, "step": int}

    def execute(self, requests):
        # Requests of up to max_batch_size different streams arrive together, one per stream.
        responses = []
        for request in requests:
            stream_id = request.correlation_id()
            x = pb_utils.get_input_tensor_by_name(request, "x").as_numpy()
            if request.flags() & START:
                self.streams[stream_id] = {"sum": np.zeros_like(x), "step": 0}
            state = self.streams.get(stream_id)
            if state is None:
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError(
                    f"stream {stream_id!r} has no state on {self.instance}: start it again with the START flag",
                    pb_utils.TritonError.INVALID_ARG)))
                continue
            state["sum"] = state["sum"] + x
            state["step"] += 1
            if request.flags() & END:
                del self.streams[stream_id]
                pb_utils.Logger.log_info(f"stream {stream_id!r} ended on {self.instance} after {state['step']} steps")
            batch = x.shape[0]
            responses.append(pb_utils.InferenceResponse([
                pb_utils.Tensor("sum", state["sum"]),
                pb_utils.Tensor("step", np.full((batch, 1), state["step"], np.int32)),
                pb_utils.Tensor("instance", np.full((batch, 1), self.instance.encode(), dtype=object)),
            ]))
        return responses
