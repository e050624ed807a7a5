import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import type { Repository } from '../../../repo/types.ts';
import { writeLargeOutputModels } from '../../../testing/largeOutputModels.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';

// A Python model's outputs are held to the server's tensor limits: the stub refuses one over them before it is
// written, and the engine refuses a frame announcing one (a stub bypassed) before gathering it.

// Writes to fd 4 itself, past the stub: a response frame announcing 200 M FP32 elements, then stalls.
const BYPASS = `
import json, os, struct, time
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        if int(requests[0].inputs()[0].as_numpy()[0]) > 0:
            return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.ones(2, np.float32))])]
        n = 200_000_000
        out = {"name": "OUT", "datatype": "FP32", "shape": [n], "offset": 0, "nbytes": 4 * n}
        header = json.dumps({"type": "response", "id": 1, "request": 0, "outputs": [out], "error": None,
                             "final": True}).encode()
        os.write(4, struct.pack("<II", len(header), 4 * n) + header + bytes(1 << 16))
        time.sleep(60)
`;

const BYPASS_CONFIG = `name: "bypass"
backend: "python"
max_batch_size: 0
input [ { name: "SIZE" data_type: TYPE_INT64 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
`;

let repo: Repository;
let engine: Engine;
const int64 = (...v: number[]): Tensor => ({
  datatype: 'INT64',
  shape: [v.length],
  data: BigInt64Array.from(v.map(BigInt)),
});
const graphOf = (model: string) => singleModelGraph(repo.catalogue.models[model]!);

beforeAll(async () => {
  const dir = tempDir('py-limits-');
  writeLargeOutputModels(dir, 10);
  mkdirSync(join(dir, 'bypass', '1'), { recursive: true });
  writeFileSync(join(dir, 'bypass', 'config.pbtxt'), BYPASS_CONFIG);
  writeFileSync(join(dir, 'bypass', '1', 'model.py'), BYPASS.trimStart());
  repo = await loadRepository(dir);
  engine = await Engine.create({ repository: repo, tensorLimits: { maxTensorElements: 1000, maxBodyBytes: 1 << 20 } });
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

describe('Python model outputs over the tensor limits', () => {
  it('an output over maxTensorElements fails its run with a message naming the model, output, count and limit', async () => {
    const over = await engine.run({ graph: graphOf('large_output'), inputs: { SIZE: int64(1001) } });
    expect(over.status).toBe('failed');
    expect(over.error?.message).toContain(
      "output 'OUT' of model 'large_output' has 1001 elements, over the limit maxTensorElements=1000",
    );
    const within = await engine.run({ graph: graphOf('large_output'), inputs: { SIZE: int64(1000) } });
    expect(within.outputs.OUT?.shape).toEqual([1000]);
  });

  it("a decoupled model's response over the limit fails the run after the responses before it", async () => {
    const sizes: number[] = [];
    const r = await engine.run({
      graph: graphOf('large_stream'),
      inputs: { SIZES: int64(3, 5000, 4) },
      onResponse: (outputs) => {
        if (outputs.OUT) sizes.push(outputs.OUT.shape[0]!);
      },
    });
    expect(sizes).toEqual([3]);
    expect(r.status).toBe('failed');
    expect(r.error?.message).toContain(
      "output 'OUT' of model 'large_stream' has 5000 elements, over the limit maxTensorElements=1000",
    );
  });

  it('a frame announcing an output over the limit, written past the stub, restarts the instance unread', async () => {
    const r = await engine.run({ graph: graphOf('bypass'), inputs: { SIZE: int64(0) } });
    expect(r.error?.code).toBe('instance-crashed');
    expect(r.error?.message).toMatch(
      /bypass_0 \(python\) sent output 'OUT' of 200000000 elements, over the limit maxTensorElements=1000; .* restarted/,
    );
    await expect
      .poll(async () => (await engine.run({ graph: graphOf('bypass'), inputs: { SIZE: int64(1) } })).status, {
        timeout: 15_000,
      })
      .toBe('completed');
  });
});
