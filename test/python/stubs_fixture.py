"""Stub composing models for BLS tests: the fixture catalogue's identity and optional_in."""
import numpy as np
import triton_python_backend_utils as pb_utils


def identity(inputs, request):
    return {"OUTPUT0": np.asarray(inputs["INPUT0"], dtype=np.float32)}


def optional_in(inputs, request):
    x = inputs["INPUT0"]
    if "INPUT1" in inputs:
        x = x + inputs["INPUT1"]
    return {"OUTPUT0": (x + 10).astype(np.float32)}


def vad(inputs, request):
    """Stateful stub: records nothing itself; the harness records correlation id and flags."""
    return {"output": np.asarray([[float(np.mean(inputs["input"]))]], dtype=np.float32)}


pb_utils.register_model("identity", identity)
pb_utils.register_model("vad", vad)
pb_utils.register_model("optional_in", optional_in)
