"""Runs a generated Triton Python model outside Triton, with the stand-in pb_utils module.

Reads one JSON object on stdin:
  {"model_py": path, "config": ModelConfig JSON, "model_repository"?: model dir,
   "stubs_file"?: path of a Python file that calls pb_utils.register_model(...),
   "requests": [{"inputs": {name: {"datatype", "shape", "data"}}, "correlation_id"?, "flags"?,
                 "requested_output_names"?}]}
Prints one JSON object: {"decoupled", "results": [{"responses": [{"outputs", "error"}],
"final", "flags"}], "calls", "error"}. Tensors are checked against the config, as Triton does.
"""

import asyncio
import importlib.util
import inspect
import json
import os
import runpy
import sys
import traceback

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
except ImportError:
    print(json.dumps({"error": "python3 has no numpy: install python3-numpy (apt) or numpy (pip)"}))
    sys.exit(3)

import triton_python_backend_utils as pb_utils  # noqa: E402

NUMPY = {
    "BOOL": np.bool_, "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64,
    "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64, "FP16": np.float16,
    "FP32": np.float32, "FP64": np.float64, "BYTES": np.object_,
}


def kserve_type(config_type):
    return "BYTES" if config_type == "TYPE_STRING" else config_type[len("TYPE_"):]


def to_array(spec):
    dtype = NUMPY[spec["datatype"]]
    data = spec["data"]
    if spec["datatype"] == "BYTES":
        data = [d.encode("utf-8") if isinstance(d, str) else d for d in data]
    return np.array(data, dtype=dtype).reshape(spec["shape"])


def to_json(array):
    if array.dtype == np.object_ or array.dtype.kind in ("S", "U"):
        flat = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in array.reshape(-1)]
        return {"datatype": "BYTES", "shape": list(array.shape), "data": flat}
    for name, t in NUMPY.items():
        if array.dtype == np.dtype(t):
            return {"datatype": name, "shape": list(array.shape), "data": array.reshape(-1).tolist()}
    raise TypeError("unsupported output dtype %s" % array.dtype)


def check_tensor(kind, tensor, declared, max_batch_size):
    """Raises when a tensor disagrees with its config entry (name, dtype, rank, fixed dims)."""
    spec = next((d for d in declared if d["name"] == tensor.name()), None)
    if spec is None:
        raise AssertionError("%s '%s' is not declared in the config" % (kind, tensor.name()))
    array = tensor.as_numpy()
    want = NUMPY[kserve_type(spec["data_type"])]
    if array.dtype != np.dtype(want):
        raise AssertionError("%s '%s' has dtype %s, config says %s" % (kind, tensor.name(), array.dtype, spec["data_type"]))
    dims = ([-1] if max_batch_size > 0 else []) + list(spec["dims"])
    if len(array.shape) != len(dims) or any(d != -1 and d != s for d, s in zip(dims, array.shape)):
        raise AssertionError("%s '%s' has shape %s, config dims %s" % (kind, tensor.name(), list(array.shape), dims))


def load_model(path):
    spec = importlib.util.spec_from_file_location("generated_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TritonPythonModel()


def shared_memory(response, request):
    """Pairs of names (outputs, or an output and an input) whose arrays share memory."""
    outs = [(t.name(), t.as_numpy()) for t in response.output_tensors()]
    ins = [("input:" + t.name(), t.as_numpy()) for t in request.inputs()]
    pairs = []
    for i, (a, x) in enumerate(outs):
        for b, y in outs[i + 1:] + ins:
            if np.shares_memory(x, y):
                pairs.append([a, b])
    return pairs


def encode_response(response, config, request):
    if response.has_error():
        return {"outputs": None, "error": response.error().message(), "shared": []}
    for t in response.output_tensors():
        check_tensor("output", t, config.get("output", []), config.get("max_batch_size", 0))
    return {"outputs": {t.name(): to_json(t.as_numpy()) for t in response.output_tensors()}, "error": None,
            "shared": shared_memory(response, request)}


def make_requests(job, config):
    requests = []
    for r in job["requests"]:
        tensors = [pb_utils.Tensor(name, to_array(spec)) for name, spec in r["inputs"].items()]
        for t in tensors:
            check_tensor("input", t, config.get("input", []), config.get("max_batch_size", 0))
        requests.append(pb_utils.InferenceRequest(
            inputs=tensors, correlation_id=r.get("correlation_id", 0), flags=r.get("flags", 0),
            requested_output_names=r.get("requested_output_names", [])))
    return requests


def run(job):
    config = job["config"]
    model_dir = job.get("model_repository") or os.path.dirname(os.path.dirname(os.path.realpath(job["model_py"])))
    if job.get("stubs_file"):
        runpy.run_path(job["stubs_file"])
    model = load_model(job["model_py"])
    if hasattr(model, "initialize"):
        model.initialize({
            "model_config": json.dumps(config), "model_instance_kind": "CPU", "model_instance_name": config.get("name", "") + "_0",
            "model_instance_device_id": "0", "model_repository": model_dir, "model_version": "1",
            "model_name": config.get("name", ""),
        })
    decoupled = pb_utils.using_decoupled_model_transaction_policy(config)
    requests = make_requests(job, config)
    returned = model.execute(requests)
    if inspect.iscoroutine(returned):
        returned = asyncio.run(returned)
    results = []
    if decoupled:
        if returned is not None:
            raise AssertionError("a decoupled model's execute must return None")
        for req in requests:
            sender = req.get_response_sender()
            results.append({"responses": [encode_response(x, config, req) for x in sender.responses],
                            "final": sender.closed, "flags": sender.flags})
    else:
        if not isinstance(returned, list) or len(returned) != len(requests) or any(x is None for x in returned):
            raise AssertionError("execute must return one InferenceResponse per request")
        results = [{"responses": [encode_response(x, config, req)], "final": True, "flags": []}
                   for x, req in zip(returned, requests)]
    return {"decoupled": decoupled, "results": results, "calls": pb_utils.CALLS, "error": None}


def main():
    job = json.loads(sys.stdin.read())
    try:
        out = run(job)
    except Exception as e:  # report, do not crash: the test prints the traceback
        out = {"error": "%s: %s" % (type(e).__name__, e), "traceback": traceback.format_exc()}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
