"""A gRPC client of the studio written against stubs that grpc_tools generates from the studio's own .proto:
Python's grpcio, not our server's code, speaks the wire. Prints one JSON object with what it saw.

usage: python3 pythonClient.py ADDRESS STUB_DIR IMAGES_JSON
IMAGES_JSON: {"hello": {"path": raw HWC uint8 file, "shape": [h, w, 3]}, "blank": {...}}
"""
import json
import struct
import sys

import grpc

address, stub_dir, images_json = sys.argv[1:4]
sys.path.insert(0, stub_dir)
import grpc_service_pb2 as pb  # noqa: E402
import grpc_service_pb2_grpc as pb_grpc  # noqa: E402

images = json.load(open(images_json))
channel = grpc.insecure_channel(address)
stub = pb_grpc.GRPCInferenceServiceStub(channel)
out = {}


def floats(raw):
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def strings(raw):
    items, off = [], 0
    while off < len(raw):
        (n,) = struct.unpack_from("<I", raw, off)
        items.append(raw[off + 4:off + 4 + n].decode())
        off += 4 + n
    return items


def image_request(name, rid, empty_final=False):
    spec = images[name]
    req = pb.ModelInferRequest(model_name="ocr", id=rid)
    req.inputs.add(name="image", datatype="UINT8", shape=spec["shape"])
    req.raw_input_contents.append(open(spec["path"], "rb").read())
    if empty_final:
        req.parameters["triton_enable_empty_final_response"].bool_param = True
    return req


def stream_summary(requests):
    seen = []
    for msg in stub.ModelStreamInfer(iter(requests)):
        r = msg.infer_response
        texts = None
        names = [o.name for o in r.outputs]
        if "texts" in names:
            texts = strings(r.raw_output_contents[names.index("texts")])
        seen.append({"error": msg.error_message, "id": r.id, "outputs": names, "texts": texts,
                     "final": r.parameters["triton_final_response"].bool_param})
    return seen


out["live"] = stub.ServerLive(pb.ServerLiveRequest()).live
meta = stub.ModelMetadata(pb.ModelMetadataRequest(name="shared-features"))
out["metadata"] = {"inputs": [[t.name, t.datatype, list(t.shape)] for t in meta.inputs]}
out["chunk_stream_decoupled"] = stub.ModelConfig(pb.ModelConfigRequest(name="python_chunk_stream")).config.model_transaction_policy.decoupled

# Unary with raw bytes, and the same tensor as typed contents.
x = [(i % 5) / 5 for i in range(64)]
raw_req = pb.ModelInferRequest(model_name="extractor", id="raw-1")
raw_req.inputs.add(name="x", datatype="FP32", shape=[1, 64])
raw_req.raw_input_contents.append(struct.pack("<64f", *x))
typed_req = pb.ModelInferRequest(model_name="extractor")
typed_req.inputs.add(name="x", datatype="FP32", shape=[1, 64]).contents.fp32_contents.extend(x)
raw_res, typed_res = stub.ModelInfer(raw_req), stub.ModelInfer(typed_req)
out["unary"] = {"id": raw_res.id, "outputs": [[o.name, list(o.shape)] for o in raw_res.outputs],
                "typed_equals_raw": floats(raw_res.raw_output_contents[0]) == floats(typed_res.raw_output_contents[0])}

# A sequence with an integer id and one with a string id: the state adds up per sequence.
def acc(seq, value, start=False, end=False):
    req = pb.ModelInferRequest(model_name="accumulate-stream")
    if isinstance(seq, str):
        req.parameters["sequence_id"].string_param = seq
    else:
        req.parameters["sequence_id"].int64_param = seq
    req.parameters["sequence_start"].bool_param = start
    req.parameters["sequence_end"].bool_param = end
    req.inputs.add(name="x", datatype="FP32", shape=[1, 8])
    req.raw_input_contents.append(struct.pack("<8f", *([value] * 8)))
    return req


out["sequence"] = [floats(stub.ModelInfer(r).raw_output_contents[0])[0] for r in
                   (acc(5, 1, start=True), acc("py-seq", 10, start=True), acc(5, 2), acc("py-seq", 10, end=True), acc(5, 3, end=True))]

# Errors: an unknown model is NOT_FOUND; a decoupled model refuses unary ModelInfer.
def status_of(req):
    try:
        stub.ModelInfer(req)
        return None
    except grpc.RpcError as e:
        return [e.code().name, e.details()]


out["unknown"] = status_of(pb.ModelInferRequest(model_name="nope"))
out["unary_ocr"] = status_of(image_request("blank", "u"))

# Streaming: text, blank, each with and without the empty final response; an error mid-stream.
out["stream_hello"] = stream_summary([image_request("hello", "h")])
out["stream_hello_final"] = stream_summary([image_request("hello", "hf", True)])
out["stream_blank"] = stream_summary([image_request("blank", "b")])
out["stream_blank_final"] = stream_summary([image_request("blank", "bf", True)])
out["stream_error_then_ok"] = stream_summary([pb.ModelInferRequest(model_name="nope", id="bad"), image_request("hello", "ok")])
print(json.dumps(out))
