"""NVIDIA's Python client (tritonclient) moving tensors through system shared memory with `studio serve`.

A check to run by hand, as tritonclient_check.py (it needs tritonclient, which is not on npm), against a server that
allows client shared memory:

    cp -r examples/model_repository /tmp/repo
    STUDIO_PYTHON=/usr/bin/python3 pnpm --silent studio serve --repo /tmp/repo --port 18100 --grpc-port 18101 \\
        --allow-client-shm &
    PYTHONPATH=/tmp/tc /usr/bin/python3 scripts/nvidia/shared_memory_check.py [HTTP_PORT GRPC_PORT]

Regions are made with `tritonclient.utils.shared_memory` (POSIX objects under /dev/shm), registered over HTTP and
gRPC; `head_a` (ONNX) and `python_copy_router` (a Python model, two outputs) read their input from one region and
write their outputs to another, and each output must equal the same request sent inline. The last line is
`N/M passed`; the exit code is 1 when any failed.
"""

import sys

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
import tritonclient.utils.shared_memory as shm

from checks import check, expect_error, finish

HTTP_PORT = sys.argv[1] if len(sys.argv) > 1 else "18100"
GRPC_PORT = sys.argv[2] if len(sys.argv) > 2 else "18101"

def round_trip(client_module, url, model, outputs):
    client = client_module.InferenceServerClient(url)
    client.unregister_system_shared_memory()
    feat = np.random.default_rng(7).standard_normal((1, 256)).astype(np.float32)
    given = client_module.InferInput("feat", [1, 256], "FP32")
    given.set_data_from_numpy(feat)
    inline = client.infer(model, [given])
    in_handle = shm.create_shared_memory_region("studio_in", "/studio_check_in", feat.nbytes)
    out_size = sum(inline.as_numpy(o).nbytes for o in outputs)
    out_handle = shm.create_shared_memory_region("studio_out", "/studio_check_out", out_size)
    try:
        shm.set_shared_memory_region(in_handle, [feat])
        client.register_system_shared_memory("studio_in", "/studio_check_in", feat.nbytes)
        client.register_system_shared_memory("studio_out", "/studio_check_out", out_size)
        names = sorted(r["name"] if isinstance(r, dict) else r for r in (
            client.get_system_shared_memory_status() if client_module is httpclient
            else client.get_system_shared_memory_status().regions))
        assert names == ["studio_in", "studio_out"], names
        x = client_module.InferInput("feat", [1, 256], "FP32")
        x.set_shared_memory("studio_in", feat.nbytes)
        requested, offset = [], 0
        for o in outputs:
            r = client_module.InferRequestedOutput(o)
            size = inline.as_numpy(o).nbytes
            r.set_shared_memory("studio_out", size, offset=offset)
            requested.append((o, r, offset))
            offset += size
        result = client.infer(model, [x], outputs=[r for _, r, _ in requested])
        for o, _, at in requested:
            meta = result.get_output(o)
            shape = meta["shape"] if isinstance(meta, dict) else list(meta.shape)
            datatype = meta["datatype"] if isinstance(meta, dict) else meta.datatype
            assert datatype == "FP32", datatype
            got = shm.get_contents_as_numpy(out_handle, np.float32, shape, offset=at)
            assert np.array_equal(got, inline.as_numpy(o)), f"{o}: {got.ravel()[:4]} != {inline.as_numpy(o).ravel()[:4]}"
    finally:
        client.unregister_system_shared_memory()
        shm.destroy_shared_memory_region(in_handle)
        shm.destroy_shared_memory_region(out_handle)


def refused_outside_region():
    client = httpclient.InferenceServerClient(f"localhost:{HTTP_PORT}")
    handle = shm.create_shared_memory_region("studio_small", "/studio_check_small", 64)
    try:
        client.register_system_shared_memory("studio_small", "/studio_check_small", 64)
        x = httpclient.InferInput("feat", [1, 256], "FP32")
        x.set_shared_memory("studio_small", 1024)
        message = expect_error(lambda: client.infer("head_a", [x]))
        assert message == "Invalid offset + byte size for shared memory region: 'studio_small'", message
    finally:
        client.unregister_system_shared_memory()
        shm.destroy_shared_memory_region(handle)


check("HTTP: head_a's input from a region, its output to another, equal to inline")(
    lambda: round_trip(httpclient, f"localhost:{HTTP_PORT}", "head_a", ["logits"]))
check("gRPC: head_a through shared memory, equal to inline")(
    lambda: round_trip(grpcclient, f"localhost:{GRPC_PORT}", "head_a", ["logits"]))
check("HTTP: python_copy_router's two outputs at two offsets of one region")(
    lambda: round_trip(httpclient, f"localhost:{HTTP_PORT}", "python_copy_router", ["feat_a", "feat_b"]))
check("gRPC: python_copy_router through shared memory")(
    lambda: round_trip(grpcclient, f"localhost:{GRPC_PORT}", "python_copy_router", ["feat_a", "feat_b"]))
check("a window past its region is refused in Triton's words")(refused_outside_region)
finish()
