import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../main.ts';
import { writePythonModel } from '../testing/pythonModels.ts';
import { tempDir } from '../testing/tempDir.ts';
import { call } from '../testing/testServer.ts';

// Triton's response cache end to end: `serve --cache-config local,size=N` (startServer's `responseCache`), a model
// whose config enables it answered from the cache for the inputs it has seen, and Triton's statistics and metrics of
// hits and misses. Each model counts its executions in an output, so a response from the cache shows the count of
// the execution that made it.

/** A Python model returning IN × 2 as OUT and how many times it has executed as N; `extra` joins its config. */
function countingModel(repo: string, name: string, extra: string): void {
  writePythonModel(
    repo,
    name,
    `name: "${name}"
backend: "python"
${extra}
input [{ name: "IN", data_type: TYPE_FP32, dims: [ -1 ] }]
output [{ name: "OUT", data_type: TYPE_FP32, dims: [ -1 ] }, { name: "N", data_type: TYPE_INT32, dims: [ 1 ] }]
instance_group [{ count: 1, kind: KIND_CPU }]
`,
    `import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.n = 0

    def execute(self, requests):
        out = []
        for r in requests:
            self.n += 1
            x = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", x * 2), pb_utils.Tensor("N", np.array([self.n], dtype=np.int32))]))
        return out
`,
  );
}

let s: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  const repo = tempDir('response-cache-');
  countingModel(repo, 'cached', 'response_cache { enable: true }');
  countingModel(repo, 'uncached', '');
  countingModel(repo, 'step', '');
  // An ensemble whose own config enables the cache (Triton's top-level ensemble caching), over an uncached step.
  mkdirSync(join(repo, 'ens', '1'), { recursive: true });
  writeFileSync(
    join(repo, 'ens', 'config.pbtxt'),
    `name: "ens"
platform: "ensemble"
input [{ name: "IN", data_type: TYPE_FP32, dims: [ -1 ] }]
output [{ name: "OUT", data_type: TYPE_FP32, dims: [ -1 ] }, { name: "N", data_type: TYPE_INT32, dims: [ 1 ] }]
ensemble_scheduling { step [{ model_name: "step" model_version: -1 input_map { key: "IN" value: "IN" } output_map { key: "OUT" value: "OUT" } output_map { key: "N" value: "N" } }] }
response_cache { enable: true }
`,
  );
  s = await startServer({
    repo,
    port: 0,
    host: '127.0.0.1',
    webDist: '/nonexistent',
    responseCache: { sizeBytes: 1 << 20 },
  });
});
afterAll(async () => {
  await s?.close();
});

async function infer(model: string, values: number[]): Promise<{ out: number[]; n: number }> {
  const r = await call(`${s.url}/v2/models/${model}/infer`, 'POST', {
    inputs: [{ name: 'IN', datatype: 'FP32', shape: [values.length], data: values }],
  });
  expect(r.status).toBe(200);
  const output = (name: string) => r.json.outputs.find((o: { name: string }) => o.name === name).data as number[];
  return { out: output('OUT'), n: output('N')[0]! };
}

const metric = (text: string, name: string, model: string) =>
  new RegExp(`^${name}\\{model="${model}",version="1"\\} (\\d+)$`, 'm').exec(text)?.[1];

describe("Triton's response cache", () => {
  it('answers inputs it has seen from the cache, and runs the model for new ones', async () => {
    expect(await infer('cached', [1, 2])).toEqual({ out: [2, 4], n: 1 });
    expect(await infer('cached', [1, 2])).toEqual({ out: [2, 4], n: 1 }); // the first execution's response
    expect(await infer('cached', [3])).toEqual({ out: [6], n: 2 });
    expect(await infer('cached', [1, 2])).toEqual({ out: [2, 4], n: 1 });
  });

  it("answers an ensemble whose own config enables it from the cache, running none of its steps (Triton's top-level caching)", async () => {
    expect(await infer('ens', [5])).toEqual({ out: [10], n: 1 });
    expect(await infer('ens', [5])).toEqual({ out: [10], n: 1 });
    expect(await infer('ens', [6])).toEqual({ out: [12], n: 2 });
    const ens = (await call(`${s.url}/v2/models/ens/stats`)).json.model_stats[0];
    expect(ens.inference_stats.cache_hit.count).toBe(1);
    expect(ens.inference_stats.cache_miss.count).toBe(2);
    expect(ens.inference_stats.success.count).toBe(3);
    expect(ens.inference_count).toBe(2);
    const step = (await call(`${s.url}/v2/models/step/stats`)).json.model_stats[0];
    expect(step.execution_count).toBe(2);
    expect(step.inference_stats.cache_hit.count).toBe(0);
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(metric(text, 'nv_cache_num_hits_per_model', 'ens')).toBe('1');
  });

  it('leaves a model whose config does not enable it alone', async () => {
    expect((await infer('uncached', [1])).n).toBe(1);
    expect((await infer('uncached', [1])).n).toBe(2);
  });

  it('counts hits and misses in the statistics and /metrics as Triton does: a hit is a success with no execution', async () => {
    const stats = (await call(`${s.url}/v2/models/cached/stats`)).json.model_stats[0];
    expect(stats.inference_stats.cache_hit.count).toBe(2);
    expect(stats.inference_stats.cache_miss.count).toBe(2);
    expect(stats.inference_stats.cache_miss.ns).toBeGreaterThan(0);
    expect(stats.inference_stats.success.count).toBe(4);
    expect(stats.execution_count).toBe(2);
    expect(stats.inference_count).toBe(2);
    const text = await (await fetch(`${s.url}/metrics`)).text();
    expect(metric(text, 'nv_cache_num_hits_per_model', 'cached')).toBe('2');
    expect(metric(text, 'nv_cache_num_misses_per_model', 'cached')).toBe('2');
    expect(metric(text, 'nv_inference_request_success', 'cached')).toBe('4');
    expect(metric(text, 'nv_inference_count', 'cached')).toBe('2');
    expect(text).toContain(
      '# HELP nv_cache_miss_duration_per_model Total cache miss (insert+lookup) duration per model, in microseconds',
    );
    expect(metric(text, 'nv_cache_num_hits_per_model', 'uncached')).toBeUndefined();
    const plain = (await call(`${s.url}/v2/models/uncached/stats`)).json.model_stats[0];
    expect(plain.inference_stats.cache_hit.count).toBe(0);
    expect(plain.inference_stats.cache_miss.count).toBe(0);
  });
});
