#!/bin/bash
# Triton's own trace tests against `studio serve`: qa/L0_trace/trace_endpoint_test.py (the trace settings over HTTP
# and gRPC with tritonclient) unchanged, and L0_trace/test.sh's trace-file scenarios, each file read by Triton's
# qa/common/trace_summary.py. Nothing of NVIDIA's is kept in the project: both are read at run time from a bare clone
# of triton-inference-server/server (MIRROR_ROOT/triton-inference-server+server/repo, as the shared triton-examples
# tools expect). Needs tritonclient on PYTHONPATH (tritonclient-setup.sh) and Debian's python3 with numpy.
#   MIRROR_ROOT=/work/.mirror PYTHONPATH=/tmp/tc bash scripts/nvidia/trace_check.sh
# A check by hand, not part of the suite (the suite must pass without network clones). Ports 8000/8001 must be free.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SERVER_GIT="${MIRROR_ROOT:?set MIRROR_ROOT}/triton-inference-server+server/repo"
PY=${PYTHON:-/usr/bin/python3}
WORK=$(mktemp -d /tmp/trace-check-XXXXXX)
trap 'stop; rm -rf "$WORK"' EXIT
mkdir -p "$WORK/qa/L0_trace" "$WORK/qa/common" "$WORK/shim" "$WORK/repo/simple/1"
for f in qa/L0_trace/trace_endpoint_test.py qa/common/test_util.py qa/common/trace_summary.py; do
  git --git-dir="$SERVER_GIT" show "HEAD:$f" > "$WORK/$f"
done
# test_util names ml_dtypes.bfloat16 at import; none of the trace tests uses it.
echo 'bfloat16 = None' > "$WORK/shim/ml_dtypes.py"

# Triton's `simple` (INT32 [16] add and subtract), as a Python model of our own.
cat > "$WORK/repo/simple/config.pbtxt" <<'PBTXT'
name: "simple"
backend: "python"
max_batch_size: 8
input [
  { name: "INPUT0", data_type: TYPE_INT32, dims: [ 16 ] },
  { name: "INPUT1", data_type: TYPE_INT32, dims: [ 16 ] }
]
output [
  { name: "OUTPUT0", data_type: TYPE_INT32, dims: [ 16 ] },
  { name: "OUTPUT1", data_type: TYPE_INT32, dims: [ 16 ] }
]
PBTXT
cat > "$WORK/repo/simple/1/model.py" <<'PYTHON'
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            a = pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy()
            b = pb_utils.get_input_tensor_by_name(r, "INPUT1").as_numpy()
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT0", a + b), pb_utils.Tensor("OUTPUT1", a - b)]))
        return out
PYTHON
# N requests over HTTP, then N over gRPC (test.sh's send_inference_requests runs its HTTP and gRPC clients N times).
cat > "$WORK/send.py" <<'PYTHON'
import sys
import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

a = np.arange(16, dtype=np.int32).reshape(1, 16)
b = np.ones((1, 16), dtype=np.int32)
for mod, url in ((httpclient, "localhost:8000"), (grpcclient, "localhost:8001")):
    client = mod.InferenceServerClient(url)
    for _ in range(int(sys.argv[1])):
        inputs = [mod.InferInput("INPUT0", [1, 16], "INT32"), mod.InferInput("INPUT1", [1, 16], "INT32")]
        inputs[0].set_data_from_numpy(a)
        inputs[1].set_data_from_numpy(b)
        result = client.infer("simple", inputs)
        assert (result.as_numpy("OUTPUT0") == a + b).all()
PYTHON

SERVE_DIR="$WORK/qa/L0_trace"
source "$ROOT/scripts/nvidia/studio_server.sh"
FAILED=0
send() { PYTHONPATH="${PYTHONPATH:-}" "$PY" "$WORK/send.py" "$1" || FAILED=1; }
post() { curl -s -X POST "localhost:8000/v2$1/trace/setting" -d "$2" > /dev/null; }
# expect FILE N: Triton's two counts on trace_summary.py -t FILE (traces of `simple`, COMPUTE_INPUT_END each).
expect() {
  local summary got_model got_input
  summary=$("$PY" "$WORK/qa/common/trace_summary.py" -t "$WORK/qa/L0_trace/$1" 2>&1)
  got_model=$(grep -c '^simple' <<< "$summary")
  got_input=$(grep -c 'COMPUTE_INPUT_END' <<< "$summary")
  if [ "$got_model" = "$2" ] && [ "$got_input" = "$2" ]; then echo "ok    $1: $2 traces"
  else echo "FAIL  $1: $got_model traces, $got_input with COMPUTE_INPUT_END (Triton's test expects $2)"; FAILED=1; fi
}

echo "== trace_endpoint_test.py"
start --trace-config triton,file=global_unittest.log --trace-config level=TIMESTAMPS --trace-config rate=1
out=$(cd "$WORK/qa/L0_trace" && PYTHONPATH="${PYTHONPATH:-}:$WORK/shim" "$PY" trace_endpoint_test.py 2>&1)
tail -3 <<< "$out"
grep -q '^OK' <<< "$out" || FAILED=1
stop

echo "== tracing turned on over HTTP after start"
start --trace-config triton,file=trace_off_to_min.log --trace-config level=OFF --trace-config rate=1
post '' '{"trace_level":["TIMESTAMPS"]}'
send 10
stop
expect trace_off_to_min.log 20

echo "== a model's log_frequency under a global rate of 6"
start --trace-config triton,file=global_trace.log --trace-config level=TIMESTAMPS --trace-config rate=6
post /models/simple '{"log_frequency":"2"}'
send 10
stop
expect global_trace.log.0 2
expect global_trace.log.1 1
rm -f "$WORK"/qa/L0_trace/global_trace.log*

echo "== a model turned OFF, then cleared back to the global level"
start --trace-config triton,file=global_trace.log --trace-config level=TIMESTAMPS --trace-config rate=6
post /models/simple '{"trace_rate":"1"}'
post /models/simple '{"trace_level":["OFF"]}'
send 10
post /models/simple '{"trace_level":null}'
send 5
stop
expect global_trace.log 10

echo "== a trace count set while serving"
start --trace-config triton,file=global_count.log --trace-config level=TIMESTAMPS --trace-config rate=1
send 10
post '' '{"trace_count":"5"}'
send 10
count=$(curl -s localhost:8000/v2/models/simple/trace/setting | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["trace_count"])')
[ "$count" = 0 ] && echo "ok    trace_count reads 0 once spent" || { echo "FAIL  trace_count reads $count"; FAILED=1; }
stop
expect global_count.log 20
expect global_count.log.0 5

[ $FAILED = 0 ] && echo "all trace checks passed" || { echo "some trace checks FAILED"; exit 1; }
