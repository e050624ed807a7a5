import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A one-instance decoupled Python model, `finishes_previous`, that keeps a request's sender open after `execute`
// returns: each request gets one response at once, and a request with X > 5 first ends the kept one with X * 100
// (then its own final), so a later execute finishes an earlier request, as Triton's decoupled mode allows.

const CONFIG = `name: "finishes_previous"
backend: "python"
model_transaction_policy { decoupled: true }
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

const MODEL = (first: string) => `import os, numpy as np, triton_python_backend_utils as pb_utils
class TritonPythonModel:
    def initialize(self, args):
        self.previous = None
    def execute(self, requests):
        for r in requests:
            s = r.get_response_sender()
            x = pb_utils.get_input_tensor_by_name(r, "X").as_numpy()
            if self.previous is not None:
                self.previous.send(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x * 100)]),
                                   flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                self.previous = None
            s.send(pb_utils.InferenceResponse([pb_utils.Tensor("Y", ${first})]))
            if x[0] > 5:
                s.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            else:
                self.previous = s
        return None
`;

/**
 * Writes `finishes_previous` into repository `dir`. Its first response to a request is the request's X, or with
 * `answer: 'pid'` the process's pid (to tell whether the instance was restarted).
 */
export function writeFinishesPrevious(dir: string, answer: 'x' | 'pid'): void {
  mkdirSync(join(dir, 'finishes_previous', '1'), { recursive: true });
  writeFileSync(join(dir, 'finishes_previous', 'config.pbtxt'), CONFIG);
  const first = answer === 'pid' ? 'np.array([os.getpid()], np.float32)' : 'x';
  writeFileSync(join(dir, 'finishes_previous', '1', 'model.py'), MODEL(first));
}
