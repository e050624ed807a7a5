"""Runs a generated Triton Python model on the studio's real stub (stub.py and its triton_python_backend_utils),
speaking the frame protocol as the engine does, through the stub tests' peer (StubPeer).

Reads one JSON object on stdin:
  {"model_py": path, "config": ModelConfig JSON, "model_repository"?: model dir,
   "stubs_file"?: path of a Python file whose MODELS dict answers the model's BLS calls,
   "requests": [{"inputs": {name: {"datatype", "shape", "data"}}, "correlation_id"?, "flags"?,
                 "requested_output_names"?}]}
Prints one JSON object: {"decoupled", "results": [{"responses": [{"outputs", "error", "shared"}], "final",
"flags"}], "calls", "error"}. Tensors are checked against the config, as Triton does.
"""

import json
import os
import runpy
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.realpath(__file__))
STUB_TESTS = os.path.join(HERE, "..", "..", "apps", "server", "src", "engine", "backends", "python", "stub", "tests")
sys.path.insert(0, os.path.realpath(STUB_TESTS))
sys.dont_write_bytecode = True  # keep __pycache__ out of the stub's tests folder

try:
    import numpy as np
except ImportError:
    print(json.dumps({"error": "python3 has no numpy: install python3-numpy (apt) or numpy (pip)"}))
    sys.exit(3)

from peer import DTYPES, StubPeer  # noqa: E402

PROBE = os.path.join(HERE, "shared_memory_probe.py")
PROBE_NAME = "_shared_memory_probe.py"
TIMEOUT_S = 60


def kserve_type(config_type):
    return "BYTES" if config_type == "TYPE_STRING" else config_type[len("TYPE_"):]


def numpy_type(datatype):
    return np.object_ if datatype == "BYTES" else DTYPES[datatype]


def to_array(spec):
    data = spec["data"]
    if spec["datatype"] == "BYTES":
        data = [d.encode("utf-8") if isinstance(d, str) else d for d in data]
    return np.array(data, dtype=numpy_type(spec["datatype"])).reshape(spec["shape"])


def to_json(array):
    if array.dtype == np.object_:
        flat = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in array.reshape(-1)]
        return {"datatype": "BYTES", "shape": list(array.shape), "data": flat}
    name = next(k for k, t in DTYPES.items() if array.dtype == np.dtype(t))
    return {"datatype": name, "shape": list(array.shape), "data": array.reshape(-1).tolist()}


def check_tensor(kind, name, array, declared, max_batch_size):
    """Raises when a tensor disagrees with its config entry (name, dtype, rank, fixed dims)."""
    spec = next((d for d in declared if d["name"] == name), None)
    if spec is None:
        raise AssertionError("%s '%s' is not declared in the config" % (kind, name))
    if array.dtype != np.dtype(numpy_type(kserve_type(spec["data_type"]))):
        raise AssertionError("%s '%s' has dtype %s, config says %s" % (kind, name, array.dtype, spec["data_type"]))
    dims = ([-1] if max_batch_size > 0 else []) + list(spec["dims"])
    if len(array.shape) != len(dims) or any(d != -1 and d != s for d, s in zip(dims, array.shape)):
        raise AssertionError("%s '%s' has shape %s, config dims %s" % (kind, name, list(array.shape), dims))


class BlsAnswers:
    """Answers `bls` frames from the stubs file's MODELS, as the engine would, and records every call."""

    def __init__(self, stubs_file):
        self.models = runpy.run_path(stubs_file)["MODELS"] if stubs_file else {}
        self.calls = []

    def answer(self, peer, frame):
        name = frame["model_name"]
        reply = {"type": "bls_response", "call": frame["call"], "error": None, "outputs": []}
        outputs = []
        if name not in self.models:
            message = "Failed for execute the inference request. Model '%s' is not ready." % name
            reply["error"] = {"message": message, "code": "UNAVAILABLE"}
        else:
            inputs = frame.tensors("inputs")
            self.calls.append({"model": name, "inputs": sorted(inputs), "correlation_id": frame["correlation_id"],
                               "flags": frame["flags"]})
            try:
                produced = self.models[name](inputs, frame.header)
                missing = [n for n in frame["requested_output_names"] if n not in produced]
                if missing:
                    raise KeyError("stub did not produce %s" % missing)
                outputs = [(n, np.asarray(produced[n])) for n in frame["requested_output_names"] or sorted(produced)]
            except Exception as e:  # the composing model failed: the caller gets an error response
                reply["error"] = {"message": str(e), "code": "INTERNAL"}
        if frame["decoupled"] and reply["error"] is None:
            peer.send({**reply, "final": False}, {"outputs": outputs})
            peer.send({**reply, "final": True})  # a decoupled call ends with a response carrying only the flag
        else:
            peer.send({**reply, "final": True}, {"outputs": outputs} if reply["error"] is None else None)


def make_requests(job, config):
    requests = []
    for i, r in enumerate(job["requests"]):
        inputs = [(name, to_array(spec)) for name, spec in r["inputs"].items()]
        for name, array in inputs:
            check_tensor("input", name, array, config.get("input", []), config.get("max_batch_size", 0))
        requests.append({"inputs": inputs, "correlation_id": r.get("correlation_id", 0), "flags": r.get("flags", 0),
                         "requested_output_names": r.get("requested_output_names", []), "request_id": str(i)})
    return requests


def encode_response(frame, config, shared):
    if frame["error"] is not None:
        return {"outputs": None, "error": frame["error"]["message"], "shared": []}
    outputs = frame.tensors("outputs")
    for name, array in outputs.items():
        check_tensor("output", name, array, config.get("output", []), config.get("max_batch_size", 0))
    return {"outputs": {n: to_json(a) for n, a in outputs.items()}, "error": None, "shared": shared}


def execute(peer, requests, bls):
    """Sends one execute; answers BLS calls until it is over. Returns ({request: [response frames]}, executed)."""
    peer.execute(1, requests)
    frames = {i: [] for i in range(len(requests))}
    executed, finals = None, set()
    deadline = time.monotonic() + TIMEOUT_S
    while executed is None or (executed["error"] is None and len(finals) < len(requests)):
        frame = peer.next(max(0.1, deadline - time.monotonic()))
        if frame is None:
            raise RuntimeError("the stub exited during execute; stderr: %s" % peer.stderr_text()[-2000:])
        if frame["type"] == "bls":
            bls.answer(peer, frame)
        elif frame["type"] == "executed":
            executed = frame
        elif frame["type"] == "response":
            frames[frame["request"]].append(frame)
            if frame["final"]:
                finals.add(frame["request"])
        else:
            raise AssertionError("unexpected frame during execute: %s" % frame.header)
    return frames, executed


def run(job, peer):
    config = job["config"]
    bls = BlsAnswers(job.get("stubs_file"))
    ready = peer.init(config, name=config.get("name", ""), instance=config.get("name", "") + "_0")
    if ready["type"] != "ready":
        raise RuntimeError(ready["message"])
    decoupled = bool(config.get("model_transaction_policy", {}).get("decoupled", False))
    requests = make_requests(job, config)
    frames, executed = execute(peer, requests, bls)
    if executed["error"] is not None:
        raise RuntimeError(executed["error"]["message"])
    reports = [json.loads(log["message"]) for log in peer.logs if os.path.basename(log["file"]) == PROBE_NAME]
    shared = reports[-1] if reports else [[] for _ in requests]  # a decoupled model's responses are not probed
    results = []
    for i in range(len(requests)):
        got = frames[i]
        answers = [f for f in got if f["outputs"] is not None or f["error"] is not None]
        results.append({"responses": [encode_response(f, config, shared[i]) for f in answers],
                        "final": any(f["final"] for f in got), "flags": [1 if f["final"] else 0 for f in got]})
    peer.send({"type": "finalize"})
    peer.expect("finalized")
    return {"decoupled": decoupled, "results": results, "calls": bls.calls, "error": None}


def main():
    job = json.loads(sys.stdin.read())
    model_py = os.path.realpath(job["model_py"])
    probe = os.path.join(os.path.dirname(model_py), PROBE_NAME)
    shutil.copyfile(PROBE, probe)
    peer = StubPeer(model_file=probe)
    try:
        out = run(job, peer)
    except Exception as e:  # report, do not crash: the test prints the traceback and the stub's stderr
        out = {"error": "%s: %s" % (type(e).__name__, e),
               "traceback": traceback.format_exc() + "\nstub stderr:\n" + peer.stderr_text()[-4000:]}
    finally:
        peer.close()
        os.remove(probe)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
