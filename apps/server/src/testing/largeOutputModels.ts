import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Python models with outputs as large as a client asks for, to see what the server's main thread does with them.

const STREAM = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            sizes = pb_utils.get_input_tensor_by_name(request, "SIZES").as_numpy()
            for i, size in enumerate(sizes):
                out = np.arange(int(size), dtype=np.float32) + np.float32(i)
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", out),
                                                        pb_utils.Tensor("INDEX", np.array([i], np.int32))]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
`;

const STREAM_CONFIG = `name: "large_stream"
backend: "python"
max_batch_size: 0
input [ { name: "SIZES" data_type: TYPE_INT64 dims: [ -1 ] } ]
output [
  { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] },
  { name: "INDEX" data_type: TYPE_INT32 dims: [ 1 ] }
]
model_transaction_policy { decoupled: true }
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

// Not decoupled: one response, OUT = (i * 7919 mod SIZE) for i < SIZE, so the highest values are spread around.
const OUTPUT = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            n = int(pb_utils.get_input_tensor_by_name(request, "SIZE").as_numpy()[0])
            out = ((np.arange(n, dtype=np.int64) * 7919) % n).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", out)]))
        return responses
`;

const OUTPUT_CONFIG = `name: "large_output"
backend: "python"
max_batch_size: 0
input [ { name: "SIZE" data_type: TYPE_INT64 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] label_filename: "labels.txt" } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

/** Values of `large_output`'s OUT for SIZE `n`, as the model makes them. */
export function largeOutputValues(n: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => Number((BigInt(i) * 7919n) % BigInt(n)));
}

/**
 * Writes two Python models into repository `dir`:
 * - `large_stream` (decoupled): SIZES [n0, n1, …] → one response per size, response i carrying OUT = [i, i+1, …,
 *   i+ni-1] (FP32) and INDEX = [i];
 * - `large_output`: SIZE [n] → OUT, n FP32 values (`largeOutputValues`), labelled `class <i>` by its label file
 *   (`labels` lines).
 * @example writeLargeOutputModels(repo, 1000); // POST /v2/models/large_stream/generate_stream {"SIZES":[2000000]}
 */
export function writeLargeOutputModels(dir: string, labels: number): void {
  const file = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  file('large_stream/config.pbtxt', STREAM_CONFIG);
  file('large_stream/1/model.py', STREAM.trimStart());
  file('large_output/config.pbtxt', OUTPUT_CONFIG);
  file('large_output/1/model.py', OUTPUT.trimStart());
  file('large_output/labels.txt', Array.from({ length: labels }, (_, i) => `class ${i}\n`).join(''));
}
