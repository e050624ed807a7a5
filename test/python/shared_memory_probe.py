"""Runs a generated model.py unchanged and says which arrays of each response share memory.

run_model.py copies this file beside the generated model.py and has stub.py load it in its place. Every tensor
crosses the frames as its own bytes, so aliasing (an output that is a view of another output or of an input)
can only be seen inside the stub process: after each non-decoupled execute this logs one info line (from
this file, which is how run_model.py knows it), the JSON list per request of [name, name] pairs whose arrays
share memory ("input:NAME" for an input).
"""
import importlib.util
import json
import os

import numpy as np
import triton_python_backend_utils as pb_utils

_spec = importlib.util.spec_from_file_location(
    "generated_model", os.path.join(os.path.dirname(os.path.abspath(__file__)), "model.py"))
_generated = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_generated)


def shared_pairs(response, request):
    if not isinstance(response, pb_utils.InferenceResponse) or response.has_error():
        return []
    outs = [(t.name(), t.as_numpy()) for t in response.output_tensors()]
    ins = [("input:" + t.name(), t.as_numpy()) for t in request.inputs()]
    pairs = []
    for i, (a, x) in enumerate(outs):
        for b, y in outs[i + 1:] + ins:
            if np.shares_memory(x, y):
                pairs.append([a, b])
    return pairs


class TritonPythonModel(_generated.TritonPythonModel):
    def execute(self, requests):
        returned = super().execute(requests)
        if isinstance(returned, list):
            report = [shared_pairs(r, q) for r, q in zip(returned, requests)]
            pb_utils.Logger.log_info(json.dumps(report))
        return returned
