import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tempDir.ts';

/**
 * A repository of Python models whose `execute` notes that it started and then holds until the test releases it,
 * so a test knows exactly which request executes and which wait (queues, batchers, gauges). Each model takes `IN`
 * and returns it as `OUT` (FP32, one element a row); `extra` is added to its config (batching, queue policy). Each
 * execute writes its requests' values as one line of `batches(name)`, so a test sees which batches ran, in order.
 * @example const r = heldModels({ held: '' }); … await r.started('held'); r.release('held');
 */
export function heldModels(configs: Record<string, string>) {
  const repo = tempDir('held-models-');
  const release = (name: string) => join(repo, `${name}.release`);
  for (const [name, extra] of Object.entries(configs)) {
    mkdirSync(join(repo, name, '1'), { recursive: true });
    writeFileSync(
      join(repo, name, 'config.pbtxt'),
      `name: "${name}"
backend: "python"
${extra}
input [{ name: "IN", data_type: TYPE_FP32, dims: [ 1 ] }]
output [{ name: "OUT", data_type: TYPE_FP32, dims: [ 1 ] }]
instance_group [{ count: 1, kind: KIND_CPU }]
`,
    );
    writeFileSync(
      join(repo, name, '1', 'model.py'),
      `
import os, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        with open(${JSON.stringify(`${release(name)}.batches`)}, "a") as f:
            f.write(" ".join("%g" % v for r in requests for v in pb_utils.get_input_tensor_by_name(r, "IN").as_numpy().ravel()) + "\\n")
        open(${JSON.stringify(`${release(name)}.started`)}, "a").close()
        until = time.time() + 30
        while not os.path.exists(${JSON.stringify(release(name))}) and time.time() < until:
            time.sleep(0.01)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", pb_utils.get_input_tensor_by_name(r, "IN").as_numpy())])
                for r in requests]
`,
    );
  }
  return {
    repo,
    /** Waits (20 s at most) until `name`'s first execute has started. */
    async started(name: string): Promise<void> {
      const until = Date.now() + 20_000;
      while (!existsSync(`${release(name)}.started`) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    },
    /** The batches `name` has executed, in order, each as its requests' values (`[[1], [4, 3]]`). */
    batches(name: string): number[][] {
      const path = `${release(name)}.batches`;
      if (!existsSync(path)) return [];
      return readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(' ').map(Number));
    },
    /** Lets `name`'s executes finish, this one and every one after. */
    release(name: string): void {
      writeFileSync(release(name), '');
    },
  };
}
