#!/bin/bash
# Triton's response cache against `studio serve`, driven by NVIDIA's tritonclient (HTTP and gRPC) as
# qa/L0_response_cache does it: a model with `response_cache { enable: true }` under `--cache-config local,size=N`
# (and the deprecated `--response-cache-byte-size`), its statistics' cache_hit and cache_miss read with
# get_inference_statistics, the nv_cache_* metrics, and the flags and models Triton refuses (incompatible flags,
# several caches; a decoupled model with the cache, which the studio serves uncached and names at start in Triton's
# words). The models are our own Python ones. Needs tritonclient on
# PYTHONPATH (the shared triton-examples tools' tritonclient-setup.sh) and Debian's python3 with numpy.
#   PYTHONPATH=/tmp/tc bash scripts/nvidia/response_cache_check.sh
# A check by hand, not part of the suite. Ports 8000/8001 must be free.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-/usr/bin/python3}
WORK=$(mktemp -d /tmp/cache-check-XXXXXX)
trap 'stop; rm -rf "$WORK"' EXIT

# identity_cache (FP32 [-1] in, the same out) and a decoupled model with the cache enabled, which Triton refuses.
model() {
  mkdir -p "$WORK/repo/$1/1"
  cat > "$WORK/repo/$1/config.pbtxt" <<PBTXT
name: "$1"
backend: "python"
max_batch_size: 0
input [ { name: "INPUT0", data_type: TYPE_FP32, dims: [ -1 ] } ]
output [ { name: "OUTPUT0", data_type: TYPE_FP32, dims: [ -1 ] } ]
response_cache { enable: True }
$2
PBTXT
  cat > "$WORK/repo/$1/1/model.py" <<'PYTHON'
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())]) for r in requests]
PYTHON
}
model identity_cache ''
model decoupled_cache 'model_transaction_policy { decoupled: True }'
# ensemble_cache_test.py's top-level case: the cache enabled on the ensemble alone, over an uncached step.
model identity_plain ''
sed -i '/response_cache/d' "$WORK/repo/identity_plain/config.pbtxt"
mkdir -p "$WORK/repo/ensemble_cache/1"
cat > "$WORK/repo/ensemble_cache/config.pbtxt" <<'PBTXT'
name: "ensemble_cache"
platform: "ensemble"
max_batch_size: 0
input [ { name: "INPUT0", data_type: TYPE_FP32, dims: [ -1 ] } ]
output [ { name: "OUTPUT0", data_type: TYPE_FP32, dims: [ -1 ] } ]
ensemble_scheduling { step [ { model_name: "identity_plain" model_version: -1
  input_map { key: "INPUT0" value: "INPUT0" } output_map { key: "OUTPUT0" value: "OUTPUT0" } } ] }
response_cache { enable: True }
PBTXT

cat > "$WORK/client.py" <<'PYTHON'
import sys
import urllib.request

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

sys.path.insert(0, sys.argv[1])
from checks import check, expect_error, finish  # noqa: E402

http = httpclient.InferenceServerClient("localhost:8000")
grpc = grpcclient.InferenceServerClient("localhost:8001")


def infer(mod, client, values, model="identity_cache"):
    x = np.array(values, dtype=np.float32)
    inp = mod.InferInput("INPUT0", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    out = client.infer(model, [inp]).as_numpy("OUTPUT0")
    assert (out == x).all(), f"{out} != {x}"


def stats(client, as_json):
    s = client.get_inference_statistics("identity_cache", as_json=as_json) if as_json else client.get_inference_statistics("identity_cache")
    return s["model_stats"][0] if as_json or isinstance(s, dict) else s


def counts():
    s = http.get_inference_statistics("identity_cache")["model_stats"][0]
    i = s["inference_stats"]
    return i["cache_hit"]["count"], i["cache_miss"]["count"], i["success"]["count"], s["execution_count"]


@check("a first request misses and runs the model; the same inputs again hit, over HTTP and gRPC")
def _():
    assert counts() == (0, 0, 0, 0), counts()
    infer(httpclient, http, [1, 2, 3])
    assert counts() == (0, 1, 1, 1), counts()
    infer(httpclient, http, [1, 2, 3])
    infer(grpcclient, grpc, [1, 2, 3])
    assert counts() == (2, 1, 3, 1), counts()
    infer(grpcclient, grpc, [4])
    assert counts() == (2, 2, 4, 2), counts()


@check("gRPC's statistics say the same (cache_hit and cache_miss counts and durations)")
def _():
    s = grpc.get_inference_statistics("identity_cache", as_json=True)["model_stats"][0]["inference_stats"]
    assert int(s["cache_hit"]["count"]) == 2 and int(s["cache_miss"]["count"]) == 2, s
    assert int(s["cache_miss"]["ns"]) > 0 and int(s["cache_hit"]["ns"]) > 0, s


@check("/metrics counts hits and misses per model (nv_cache_num_hits_per_model, nv_cache_num_misses_per_model)")
def _():
    text = urllib.request.urlopen("http://localhost:8000/metrics").read().decode()
    assert 'nv_cache_num_hits_per_model{model="identity_cache",version="1"} 2' in text, text[:2000]
    assert 'nv_cache_num_misses_per_model{model="identity_cache",version="1"} 2' in text
    assert 'nv_inference_count{model="identity_cache",version="1"} 2' in text


@check("an ensemble with the cache enabled on itself alone: a miss, then a hit that runs no step (top-level caching)")
def _():
    def stats(model):
        s = grpc.get_inference_statistics(model, as_json=True)["model_stats"][0]
        i = s["inference_stats"]
        return int(i.get("cache_hit", {}).get("count", 0)), int(i.get("cache_miss", {}).get("count", 0)), int(s.get("execution_count", 0))

    infer(grpcclient, grpc, [7, 8], "ensemble_cache")
    assert stats("ensemble_cache")[:2] == (0, 1), stats("ensemble_cache")
    infer(grpcclient, grpc, [7, 8], "ensemble_cache")
    assert stats("ensemble_cache")[:2] == (1, 1), stats("ensemble_cache")
    assert stats("identity_plain") == (0, 0, 1), stats("identity_plain")


finish()
PYTHON

source "$ROOT/scripts/nvidia/studio_server.sh"
FAILED=0
# refused MESSAGE FLAGS...: serve exits with usage status 2, saying MESSAGE.
refused() {
  local message=$1; shift
  out=$(STUDIO_PYTHON=$PY node "$ROOT/apps/server/bin/ensemble-studio.mjs" serve --repo "$WORK/repo" --port 0 --grpc-port 0 "$@" 2>&1)
  code=$?
  if [ $code = 2 ] && grep -qi "$message" <<< "$out"; then echo "ok    refused: $message"
  else echo "FAIL  $*: exit $code, $out"; FAILED=1; fi
}

for flags in "--cache-config=local,size=8192" "--response-cache-byte-size=8192"; do
  echo "== $flags"
  start "$flags"
  [ "$flags" = "--response-cache-byte-size=8192" ] && { grep -q "Warning: '--response-cache-byte-size' has been deprecated" "$WORK/server.log" && echo "ok    the deprecation warning" || { echo "FAIL  no deprecation warning"; FAILED=1; }; }
  PYTHONPATH="${PYTHONPATH:-}" "$PY" "$WORK/client.py" "$ROOT/scripts/nvidia" || FAILED=1
  # The studio serves what Triton would refuse to load, and says why when it starts, in Triton's words.
  grep -q "Response Cache does not currently support model decoupled_cache with 'decoupled' transaction policy" \
    "$WORK/server.log" && echo "ok    the decoupled model's cache named as Triton refuses it" || { echo "FAIL  no word of the decoupled model's cache"; FAILED=1; }
  stop
done
echo "== flags Triton refuses"
refused "multiple cache configurations" --cache-config=local,size=8192 --cache-config=redis,key=value
refused "incompatible flags" --response-cache-byte-size=12345 --cache-config=local,size=67890

[ $FAILED = 0 ] && echo "all response cache checks passed" || { echo "some response cache checks FAILED"; exit 1; }
