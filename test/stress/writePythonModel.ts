// Small Python-backend models written for a stress file's private repository.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** An INT32 [1] tensor of a config's input or output list. */
export const i32 = (name: string, optional = false) =>
  `{ name: "${name}" data_type: TYPE_INT32 dims: [ 1 ]${optional ? ' optional: true' : ''} }`;

/** Python model `name` with these inputs and outputs (INT32 [1] each) and `execute` as its body. */
export function writeModel(
  repo: string,
  name: string,
  io: { inputs: string[]; outputs: string[] },
  execute: string,
  extra = '',
) {
  mkdirSync(join(repo, name, '1'), { recursive: true });
  writeFileSync(
    join(repo, name, 'config.pbtxt'),
    `backend: "python"\ninput [ ${io.inputs.join(', ')} ]\noutput [ ${io.outputs.join(', ')} ]\n` +
      `instance_group [ { count: 1 kind: KIND_CPU } ]\n${extra}\n`,
  );
  writeFileSync(
    join(repo, name, '1', 'model.py'),
    `import os, time
import numpy as np
import triton_python_backend_utils as pb_utils

def get(r, n):
    t = pb_utils.get_input_tensor_by_name(r, n)
    return None if t is None else int(t.as_numpy()[0])
def resp(**outs): return pb_utils.InferenceResponse([pb_utils.Tensor(k, np.array([v], np.int32)) for k, v in outs.items()])

class TritonPythonModel:
    def initialize(self, args): self.repo = args["model_repository"]
    def execute(self, requests):
${execute}
`,
  );
}

/** Saves `graph` in the repository as the studio saves a graph: `<name>/studio.json`. */
export function writeSavedGraph(repo: string, graph: { name: string }): void {
  mkdirSync(join(repo, graph.name));
  writeFileSync(join(repo, graph.name, 'studio.json'), JSON.stringify(graph));
}
