import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../main.ts';
import { tempDir } from '../testing/tempDir.ts';
import { call } from '../testing/testServer.ts';

// Triton's per-model gauges on /metrics: requests waiting to execute (`nv_inference_pending_request_count`), through
// an instance's queue and through the dynamic batcher, and how long the model took to load. Each Python model here
// notes when an execute starts and holds it until the test writes its release file, so what waits is known exactly.

const model = (release: string) => `
import os, time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        open(${JSON.stringify(release + '.started')}, "a").close()
        until = time.time() + 30
        while not os.path.exists(${JSON.stringify(release)}) and time.time() < until:
            time.sleep(0.01)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", pb_utils.get_input_tensor_by_name(r, "IN").as_numpy())])
                for r in requests]
`;

const config = (name: string, batched: boolean) => `name: "${name}"
backend: "python"
${batched ? 'max_batch_size: 4\ndynamic_batching {}\n' : ''}input [{ name: "IN", data_type: TYPE_FP32, dims: [ 1 ] }]
output [{ name: "OUT", data_type: TYPE_FP32, dims: [ 1 ] }]
instance_group [{ count: 1, kind: KIND_CPU }]
`;

let s: Awaited<ReturnType<typeof startServer>>;
let repo: string;

beforeAll(async () => {
  repo = tempDir('pending-metrics-');
  for (const [name, batched] of [
    ['held', false],
    ['held_batched', true],
  ] as const) {
    mkdirSync(join(repo, name, '1'), { recursive: true });
    writeFileSync(join(repo, name, 'config.pbtxt'), config(name, batched));
    writeFileSync(join(repo, name, '1', 'model.py'), model(join(repo, `${name}.release`)));
  }
  s = await startServer({ repo, port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
});
afterAll(async () => {
  await s?.close();
});

const scrape = async () => (await fetch(`${s.url}/metrics`)).text();
const pending = (text: string, name: string) =>
  Number(
    new RegExp(`^nv_inference_pending_request_count\\{model="${name}",version="1"\\} (\\d+)$`, 'm').exec(text)?.[1],
  );

/** Polls /metrics until `name`'s pending gauge reads `want` (20 s at most); returns what it read last. */
async function pendingReaches(name: string, want: number): Promise<number> {
  const until = Date.now() + 20_000;
  for (;;) {
    const got = pending(await scrape(), name);
    if (got === want || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits (20 s at most) until `name`'s execute has started. */
async function started(name: string): Promise<void> {
  const until = Date.now() + 20_000;
  while (!existsSync(join(repo, `${name}.release.started`)) && Date.now() < until)
    await new Promise((r) => setTimeout(r, 10));
}

const infer = (name: string, batched: boolean, v: number) =>
  call(`${s.url}/v2/models/${name}/infer`, 'POST', {
    inputs: [{ name: 'IN', datatype: 'FP32', shape: batched ? [1, 1] : [1], data: [v] }],
  });

describe("Triton's per-model gauges", () => {
  it('count the requests waiting for an instance, and none once they have run', async () => {
    expect(pending(await scrape(), 'held')).toBe(0);
    // One executes (held); the two sent after it wait in the instance's queue.
    const first = infer('held', false, 1);
    await started('held');
    const rest = [2, 3].map((v) => infer('held', false, v));
    expect(await pendingReaches('held', 2)).toBe(2);
    writeFileSync(join(repo, 'held.release'), '');
    for (const r of await Promise.all([first, ...rest])) expect(r.status).toBe(200);
    expect(pending(await scrape(), 'held')).toBe(0);
  });

  it('count the requests waiting in the dynamic batcher behind an executing batch', async () => {
    const first = infer('held_batched', true, 1);
    await started('held_batched');
    // The instance is busy: the three sent now wait in the batcher, none of them executing.
    const rest = [2, 3, 4].map((v) => infer('held_batched', true, v));
    expect(await pendingReaches('held_batched', 3)).toBe(3);
    writeFileSync(join(repo, 'held_batched.release'), '');
    for (const r of await Promise.all([first, ...rest])) expect(r.status).toBe(200);
    expect(pending(await scrape(), 'held_batched')).toBe(0);
  });

  it("give each loaded model's load time in seconds", async () => {
    const text = await scrape();
    expect(text).toContain('# HELP nv_model_load_duration_secs Model load time in seconds\n');
    for (const name of ['held', 'held_batched']) {
      const secs = Number(
        new RegExp(`^nv_model_load_duration_secs\\{model="${name}",version="1"\\} (\\S+)$`, 'm').exec(text)?.[1],
      );
      expect(secs).toBeGreaterThan(0);
      expect(secs).toBeLessThan(120);
    }
  });
});
