"""NVIDIA's own Python client (tritonclient, HTTP and gRPC) against a running `studio serve`.

A check to run by hand, not part of the suite (it needs tritonclient, which is not on npm):

    MIRROR_ROOT=<clones> bash /work/shared/tools/triton-examples/tritonclient-setup.sh /tmp/tc
    cp -r examples/model_repository /tmp/repo
    STUDIO_PYTHON=/usr/bin/python3 pnpm --silent studio serve --repo /tmp/repo --port 18100 --grpc-port 18101 &
    PYTHONPATH=/tmp/tc /usr/bin/python3 scripts/nvidia/tritonclient_check.py [HTTP_PORT GRPC_PORT]

Each check prints `ok` or `FAIL` with what it saw; the last line is `N/M passed`, and the exit code is 1 when any
failed. Expected behaviour and wording are Triton's (server and core sources), not the studio's tests.
"""

import queue
import subprocess
import sys
from functools import partial

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from checks import check, expect_error, finish

HTTP_PORT = sys.argv[1] if len(sys.argv) > 1 else "18100"
GRPC_PORT = sys.argv[2] if len(sys.argv) > 2 else "18101"
http = httpclient.InferenceServerClient(f"localhost:{HTTP_PORT}")
grpc = grpcclient.InferenceServerClient(f"localhost:{GRPC_PORT}")


def text_image():
    raw = subprocess.run(
        ["convert", "-size", "480x96", "xc:white", "-fill", "black", "-pointsize", "48",
         "-draw", "text 16,66 'HELLO 42'", "-depth", "8", "rgb:-"],
        check=True, capture_output=True,
    ).stdout
    return np.frombuffer(raw, dtype=np.uint8).reshape(96, 480, 3).copy()


def infer_io(lib, name, array, dtype):
    tensor = lib.InferInput(name, list(array.shape), dtype)
    tensor.set_data_from_numpy(array)
    return tensor


feat = np.random.default_rng(7).standard_normal((2, 256)).astype(np.float32)
x64 = np.random.default_rng(8).standard_normal((3, 64)).astype(np.float32)


@check("HTTP server live, ready, metadata")
def _():
    assert http.is_server_live() and http.is_server_ready()
    meta = http.get_server_metadata()
    assert meta["name"] and meta["version"] and "model_repository" in meta["extensions"], meta


@check("gRPC server live, ready, metadata")
def _():
    assert grpc.is_server_live() and grpc.is_server_ready()
    meta = grpc.get_server_metadata()
    assert meta.name and meta.version and "model_repository" in meta.extensions, meta


@check("HTTP and gRPC model metadata and config of head_a")
def _():
    meta = http.get_model_metadata("head_a")
    assert meta["inputs"][0]["name"] == "feat" and meta["inputs"][0]["shape"] == [-1, 256]
    config = grpc.get_model_config("head_a").config
    assert config.max_batch_size == 32 and config.input[0].dims == [256]
    assert http.get_model_config("head_a")["dynamic_batching"]["max_queue_delay_microseconds"] == 2000


@check("repository index over HTTP and gRPC agree")
def _():
    names_http = sorted(m["name"] for m in http.get_model_repository_index())
    names_grpc = sorted(m.name for m in grpc.get_model_repository_index().models)
    assert names_http == names_grpc and "ocr" in names_http


@check("head_a over HTTP (binary), HTTP (JSON) and gRPC give one answer")
def _():
    outs = []
    for binary in (True, False):
        inp = infer_io(httpclient, "feat", feat, "FP32")
        inp.set_data_from_numpy(feat, binary_data=binary)
        r = http.infer("head_a", [inp], outputs=[httpclient.InferRequestedOutput("logits", binary_data=binary)])
        outs.append(r.as_numpy("logits"))
    outs.append(grpc.infer("head_a", [infer_io(grpcclient, "feat", feat, "FP32")]).as_numpy("logits"))
    assert outs[0].shape == (2, 16)
    assert np.allclose(outs[0], outs[1], atol=1e-5) and np.allclose(outs[0], outs[2])


@check("HTTP async_infer of extractor")
def _():
    client = httpclient.InferenceServerClient(f"localhost:{HTTP_PORT}", concurrency=4)
    pending = [client.async_infer("extractor", [infer_io(httpclient, "x", x64, "FP32")]) for _ in range(8)]
    answers = [p.get_result().as_numpy("feat") for p in pending]
    assert all(a.shape == (3, 256) and np.array_equal(a, answers[0]) for a in answers)
    client.close()


@check("ensemble shared-features equals its steps run one by one")
def _():
    r = grpc.infer("shared-features", [infer_io(grpcclient, "x", x64, "FP32")])
    f = grpc.infer("extractor", [infer_io(grpcclient, "x", x64, "FP32")]).as_numpy("feat")
    a = grpc.infer("head_a", [infer_io(grpcclient, "feat", f, "FP32")]).as_numpy("logits")
    assert np.allclose(r.as_numpy("logits_a"), a, atol=1e-5)


@check("python-shared-features (Python copy router) equals shared-features")
def _():
    a = http.infer("python-shared-features", [infer_io(httpclient, "x", x64, "FP32")])
    b = http.infer("shared-features", [infer_io(httpclient, "x", x64, "FP32")])
    for name in ("logits_a", "logits_b"):
        assert np.allclose(a.as_numpy(name), b.as_numpy(name), atol=1e-5)


@check("Python model python_copy_router over gRPC copies its input")
def _():
    r = grpc.infer("python_copy_router", [infer_io(grpcclient, "feat", feat, "FP32")])
    assert np.array_equal(r.as_numpy("feat_a"), feat) and np.array_equal(r.as_numpy("feat_b"), feat)


@check("Python BLS model python_text_bls finds the text line (HTTP)")
def _():
    r = http.infer("python_text_bls", [infer_io(httpclient, "image", text_image(), "UINT8")])
    assert r.as_numpy("boxes").shape[0] >= 1 and r.as_numpy("ink").shape[0] == r.as_numpy("boxes").shape[0]


@check("OCR ensemble (decoupled) over a gRPC stream reads HELLO 42")
def _():
    got = queue.Queue()
    grpc.start_stream(callback=lambda result, error: got.put((result, error)))
    try:
        grpc.async_stream_infer("ocr", [infer_io(grpcclient, "image", text_image(), "UINT8")])
        result, error = got.get(timeout=30)
        assert error is None, error
        texts = [t.decode() for t in result.as_numpy("texts")]
        assert any("HELLO" in t for t in texts), texts
    finally:
        grpc.stop_stream()


@check("decoupled python_chunk_stream over a gRPC stream: one response per chunk")
def _():
    signal = np.arange(10000, dtype=np.float32)
    got = queue.Queue()
    grpc.start_stream(callback=lambda result, error: got.put((result, error)))
    try:
        grpc.async_stream_infer("python_chunk_stream", [infer_io(grpcclient, "signal", signal, "FP32")])
        chunks = [got.get(timeout=30) for _ in range(3)]
        assert all(e is None for _, e in chunks), chunks
        assert [int(r.as_numpy("index")[0]) for r, _ in chunks] == [0, 1, 2]
        assert np.array_equal(np.concatenate([r.as_numpy("chunk") for r, _ in chunks]), signal)
    finally:
        grpc.stop_stream()


@check("decoupled model through gRPC ModelInfer: Triton's UNIMPLEMENTED")
def _():
    signal = np.ones(10, dtype=np.float32)
    expect_error(lambda: grpc.infer("python_chunk_stream", [infer_io(grpcclient, "signal", signal, "FP32")]),
                 "ModelInfer RPC doesn't support models with decoupled transaction policy")


@check("decoupled model through HTTP infer: Triton's refusal")
def _():
    signal = np.ones(10, dtype=np.float32)
    expect_error(lambda: http.infer("python_chunk_stream", [infer_io(httpclient, "signal", signal, "FP32")]),
                 "decoupled")


@check("empty final response flag on a gRPC stream (triton_enable_empty_final_response)")
def _():
    signal = np.arange(4000, dtype=np.float32)
    got = queue.Queue()
    grpc.start_stream(callback=lambda result, error: got.put((result, error)))
    try:
        grpc.async_stream_infer("python_chunk_stream", [infer_io(grpcclient, "signal", signal, "FP32")],
                                enable_empty_final_response=True)
        finals = []
        while True:
            result, error = got.get(timeout=30)
            assert error is None, error
            final = result.get_response().parameters["triton_final_response"].bool_param
            finals.append(final)
            if final:
                break
        assert finals[-1] and len(finals) >= 2
    finally:
        grpc.stop_stream()


def sequence_steps(lib, client, seq_id, values):
    sums = []
    for i, v in enumerate(values):
        x = np.full((1, 4), v, dtype=np.float32)
        r = client.infer("python_stream_state", [infer_io(lib, "x", x, "FP32")], sequence_id=seq_id,
                         sequence_start=i == 0, sequence_end=i == len(values) - 1)
        sums.append(float(r.as_numpy("sum")[0][0]))
    return sums


@check("Python sequence model over HTTP keeps state per sequence")
def _():
    assert sequence_steps(httpclient, http, 1001, [1, 2, 3]) == [1, 3, 6]


@check("Python sequence model over gRPC with a string correlation id")
def _():
    assert sequence_steps(grpcclient, grpc, "stream-a", [5, 5]) == [5, 10]


@check("two interleaved sequences keep their own state (gRPC)")
def _():
    def step(seq, v, start=False, end=False):
        x = np.full((1, 4), v, dtype=np.float32)
        r = grpc.infer("python_stream_state", [infer_io(grpcclient, "x", x, "FP32")], sequence_id=seq,
                       sequence_start=start, sequence_end=end)
        return float(r.as_numpy("sum")[0][0])

    assert step(2001, 1, start=True) == 1 and step(2002, 10, start=True) == 10
    assert step(2001, 1) == 2 and step(2002, 10) == 20
    assert step(2001, 1, end=True) == 3 and step(2002, 10, end=True) == 30


@check("a sequence request without START: Triton's wording")
def _():
    x = np.ones((1, 4), dtype=np.float32)
    expect_error(lambda: http.infer("python_stream_state", [infer_io(httpclient, "x", x, "FP32")], sequence_id=31337),
                 "must specify the START flag on the first request of the sequence")


@check("accumulator (implicit state, oldest) over gRPC stream with sequence flags")
def _():
    got = queue.Queue()
    grpc.start_stream(callback=lambda result, error: got.put((result, error)))
    try:
        for i in range(3):
            x = np.full((1, 8), 2, dtype=np.float32)
            grpc.async_stream_infer("accumulator", [infer_io(grpcclient, "x", x, "FP32")], sequence_id=4242,
                                    sequence_start=i == 0, sequence_end=i == 2)
        ys = []
        for _ in range(3):
            result, error = got.get(timeout=30)
            assert error is None, error
            ys.append(float(result.as_numpy("y")[0][0]))
        assert ys == [2, 4, 6], ys
    finally:
        grpc.stop_stream()


@check("unknown model: Triton's wording (HTTP and gRPC)")
def _():
    expect_error(lambda: http.get_model_metadata("no_such_model"), "no_such_model")
    expect_error(lambda: grpc.infer("no_such_model", [infer_io(grpcclient, "x", x64, "FP32")]),
                 "Request for unknown model: 'no_such_model' is not found")


@check("wrong input shape refused with Triton's wording")
def _():
    bad = np.zeros((2, 255), dtype=np.float32)
    expect_error(lambda: http.infer("head_a", [infer_io(httpclient, "feat", bad, "FP32")]), "unexpected shape for input 'feat'")
    expect_error(lambda: grpc.infer("head_a", [infer_io(grpcclient, "feat", bad, "FP32")]), "unexpected shape for input 'feat'")


@check("wrong datatype refused with Triton's wording")
def _():
    bad = np.zeros((2, 256), dtype=np.int32)
    expect_error(lambda: grpc.infer("head_a", [infer_io(grpcclient, "feat", bad, "INT32")]),
                 "inference input 'feat' data-type is 'INT32', but model 'head_a' expects 'FP32'")


@check("batch over max_batch_size refused")
def _():
    big = np.zeros((33, 256), dtype=np.float32)
    expect_error(lambda: http.infer("head_a", [infer_io(httpclient, "feat", big, "FP32")]),
                 "batch-size must be <= 32")


@check("unknown requested output refused")
def _():
    expect_error(lambda: http.infer("head_a", [infer_io(httpclient, "feat", feat, "FP32")],
                                    outputs=[httpclient.InferRequestedOutput("nope")]), "nope")


@check("model statistics count the requests made (HTTP and gRPC)")
def _():
    before = http.get_inference_statistics("head_b")["model_stats"][0]["inference_count"]
    for _ in range(3):
        grpc.infer("head_b", [infer_io(grpcclient, "feat", feat, "FP32")])
    after = grpc.get_inference_statistics("head_b").model_stats[0].inference_count
    assert after - before == 6, (before, after)


@check("unload and load a Python model over gRPC, then infer")
def _():
    grpc.unload_model("python_copy_router")
    assert not grpc.is_model_ready("python_copy_router")
    grpc.load_model("python_copy_router")
    assert grpc.is_model_ready("python_copy_router")
    r = grpc.infer("python_copy_router", [infer_io(grpcclient, "feat", feat, "FP32")])
    assert np.array_equal(r.as_numpy("feat_a"), feat)


@check("unload and load an ONNX model over HTTP, then infer")
def _():
    http.unload_model("head_b")
    assert not http.is_model_ready("head_b")
    http.load_model("head_b")
    assert http.is_model_ready("head_b")
    http.infer("head_b", [infer_io(httpclient, "feat", feat, "FP32")])


@check("request id comes back (HTTP and gRPC)")
def _():
    r = http.infer("head_a", [infer_io(httpclient, "feat", feat, "FP32")], request_id="req-17")
    assert r.get_response()["id"] == "req-17"
    g = grpc.infer("head_a", [infer_io(grpcclient, "feat", feat, "FP32")], request_id="req-18")
    assert g.get_response().id == "req-18"


@check("BYTES output as JSON and as binary data over HTTP, and over gRPC")
def _():
    x = np.ones((1, 4), dtype=np.float32)
    names = []
    for seq, binary in ((5001, False), (5002, True)):
        r = http.infer("python_stream_state", [infer_io(httpclient, "x", x, "FP32")], sequence_id=seq,
                       sequence_start=True, sequence_end=True,
                       outputs=[httpclient.InferRequestedOutput("instance", binary_data=binary)])
        names.append(r.as_numpy("instance"))
    g = grpc.infer("python_stream_state", [infer_io(grpcclient, "x", x, "FP32")], sequence_id=5003,
                   sequence_start=True, sequence_end=True)
    names.append(g.as_numpy("instance"))
    text = [n[0][0].decode() if isinstance(n[0][0], bytes) else n[0][0] for n in names]
    assert all(n.dtype == np.object_ and n.shape == (1, 1) for n in names), names
    assert all(t.startswith("python_stream_state_") for t in text), text


@check("gRPC stream error for one request does not end the stream")
def _():
    got = queue.Queue()
    grpc.start_stream(callback=lambda result, error: got.put((result, error)))
    try:
        bad = np.zeros((1, 255), dtype=np.float32)
        grpc.async_stream_infer("head_a", [infer_io(grpcclient, "feat", bad, "FP32")])
        grpc.async_stream_infer("head_a", [infer_io(grpcclient, "feat", feat, "FP32")])
        first, second = got.get(timeout=30), got.get(timeout=30)
        assert first[1] is not None and "unexpected shape" in first[1].message()
        assert second[1] is None and second[0].as_numpy("logits").shape == (2, 16)
    finally:
        grpc.stop_stream()


@check("system shared memory: no regions listed; registering refused as Triton refuses it without --allow-client-shm")
def _():
    assert http.get_system_shared_memory_status() == [], http.get_system_shared_memory_status()
    assert len(grpc.get_system_shared_memory_status().regions) == 0
    disabled = "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable."
    expect_error(lambda: http.register_system_shared_memory("r", "/studio_check", 8), disabled)
    expect_error(lambda: grpc.register_system_shared_memory("r", "/studio_check", 8), disabled)


@check("log settings: Triton's defaults, changed and reported over HTTP and gRPC; log_file refused")
def _():
    settings = http.get_log_settings()
    assert settings == {"log_file": "", "log_info": True, "log_warning": True, "log_error": True,
                        "log_verbose_level": 0, "log_format": "default"}, settings
    assert http.update_log_settings({"log_verbose_level": 1})["log_verbose_level"] == 1
    got = grpc.get_log_settings(as_json=True)["settings"]
    assert got["log_verbose_level"]["uint32_param"] == 1, got
    grpc.update_log_settings({"log_verbose_level": 0})
    assert http.get_log_settings()["log_verbose_level"] == 0
    expect_error(lambda: http.update_log_settings({"log_file": "/tmp/x"}), "log file location can not be updated")


@check("trace settings: Triton's defaults (tracing off), a model's own setting over HTTP and gRPC, cleared back")
def _():
    off = {"trace_level": ["OFF"], "trace_rate": "1000", "trace_count": "-1", "log_frequency": "0",
           "trace_file": "", "trace_mode": "triton"}
    assert http.get_trace_settings() == off, http.get_trace_settings()
    assert http.get_trace_settings(model_name="head_a") == off
    got = http.update_trace_settings(model_name="head_a", settings={"trace_rate": "10", "trace_count": "5"})
    assert (got["trace_rate"], got["trace_count"]) == ("10", "5"), got
    settings = grpc.get_trace_settings(model_name="head_a", as_json=True)["settings"]
    assert settings["trace_rate"]["value"] == ["10"], settings
    grpc.update_trace_settings(model_name="head_a", settings={"trace_rate": None, "trace_count": None})
    assert http.get_trace_settings(model_name="head_a") == off
    # Without a trace file a setting that traces is refused, as by a Triton started without one.
    expect_error(lambda: http.update_trace_settings(settings={"trace_level": ["TIMESTAMPS"]}),
                 "Attempting to set invalid trace setting :trace file name is not given")
    expect_error(lambda: http.update_trace_settings(settings={"trace_file": "/tmp/t.json"}),
                 "trace file location can not be updated through network protocol")
    expect_error(lambda: grpc.get_trace_settings(model_name="nope"), "Request for unknown model : nope")


@check("gRPC client deadline on a unary call is reported as DEADLINE_EXCEEDED")
def _():
    image = np.tile(text_image(), (8, 8, 1))
    message = expect_error(lambda: grpc.infer("python_text_bls", [infer_io(grpcclient, "image", image, "UINT8")],
                                              client_timeout=0.001), "")
    assert "Deadline" in message or "DEADLINE" in message, message


@check("gRPC metadata of one value over 64 KiB: RESOURCE_EXHAUSTED at once, as C-core's hard limit words it")
def _():
    # nghttp2 used to end the connection (GOAWAY COMPRESSION_ERROR) and this client retried until its deadline.
    for size in (70_000, 3_000_000):
        try:
            grpc.is_server_live(headers={"x-big": "#" * size}, client_timeout=10)
        except InferenceServerException as e:
            assert e.status() == "StatusCode.RESOURCE_EXHAUSTED", (e.status(), e.message())
            assert "received metadata size exceeds hard limit (" in e.message() and "vs. 16384)" in e.message(), e.message()
        else:
            raise AssertionError(f"a {size}-byte metadata value was taken")
    assert grpc.is_server_live()


@check("server still answers after everything above")
def _():
    assert http.is_server_ready() and grpc.is_server_ready()
    grpc.infer("head_a", [infer_io(grpcclient, "feat", feat, "FP32")])


finish()
