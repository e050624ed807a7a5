import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A decoupled Python model that streams large responses: one per element of SIZES, response i carrying OUT, the
// FP32 numbers i, i+1, …, i+SIZES[i]-1, and INDEX [i]; then the final flag.
const MODEL = `
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

const CONFIG = `name: "large_stream"
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

/**
 * Writes `large_stream` into repository `dir`: a decoupled Python model answering SIZES [n0, n1, …] with one response
 * per size, response i carrying OUT = [i, i+1, …, i+ni-1] (FP32) and INDEX = [i].
 * @example writeLargeStreamModel(repo); // POST /v2/models/large_stream/generate_stream {"SIZES":[2000000,2000000]}
 */
export function writeLargeStreamModel(dir: string): void {
  mkdirSync(join(dir, 'large_stream', '1'), { recursive: true });
  writeFileSync(join(dir, 'large_stream', 'config.pbtxt'), CONFIG);
  writeFileSync(join(dir, 'large_stream', '1', 'model.py'), MODEL.trimStart());
}
