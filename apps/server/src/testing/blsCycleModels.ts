import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Two one-instance Python models, `ping` and `pong`, that BLS-call each other: a request with X < 0 answers the
// process's pid (to tell whether the instance was restarted); any other X is passed to the other model, so a
// request to either waits on itself through the other for ever (in Triton too).

const CONFIG = (name: string) => `name: "${name}"
backend: "python"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

const CALLS = (other: string) => `
import os, numpy as np, triton_python_backend_utils as pb_utils
class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            x = pb_utils.get_input_tensor_by_name(r, "X")
            if x.as_numpy()[0] < 0:
                out.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([os.getpid()], np.float32))]))
                continue
            resp = pb_utils.InferenceRequest(model_name="${other}", inputs=[x], requested_output_names=["Y"]).exec()
            if resp.has_error():
                raise pb_utils.TritonModelException(resp.error().message())
            out.append(pb_utils.InferenceResponse([pb_utils.get_output_tensor_by_name(resp, "Y")]))
        return out
`;

/** Writes `ping` and `pong` (`<dir>/<name>/config.pbtxt`, `<dir>/<name>/1/model.py`) into a repository. */
export function writeBlsCycle(dir: string): void {
  for (const [name, other] of [
    ['ping', 'pong'],
    ['pong', 'ping'],
  ] as const) {
    mkdirSync(join(dir, name, '1'), { recursive: true });
    writeFileSync(join(dir, name, 'config.pbtxt'), CONFIG(name));
    writeFileSync(join(dir, name, '1', 'model.py'), CALLS(other).trimStart());
  }
}
