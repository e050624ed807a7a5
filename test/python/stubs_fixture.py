"""Composing models that answer the BLS calls of generated models in tests: the fixture catalogue's identity,
optional_in and vad. run_model.py loads this file and answers each `bls` frame from MODELS.

Each function takes the call's inputs ({name: numpy array}) and the `bls` frame's header, and returns
{output name: array}; raising fails the call with an error response carrying the exception's text.
"""
import numpy as np


def identity(inputs, call):
    return {"OUTPUT0": np.asarray(inputs["INPUT0"], dtype=np.float32)}


def optional_in(inputs, call):
    x = inputs["INPUT0"]
    if "INPUT1" in inputs:
        x = x + inputs["INPUT1"]
    return {"OUTPUT0": (x + 10).astype(np.float32)}


def vad(inputs, call):
    """Stateful in the catalogue; run_model.py records each call's correlation id and flags."""
    return {"output": np.asarray([[float(np.mean(inputs["input"]))]], dtype=np.float32)}


MODELS = {"identity": identity, "optional_in": optional_in, "vad": vad}
