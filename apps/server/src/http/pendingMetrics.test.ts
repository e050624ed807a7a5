import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../main.ts';
import { heldModels } from '../testing/heldPythonModels.ts';
import { call } from '../testing/testServer.ts';

// Triton's per-model gauges on /metrics: requests waiting to execute (`nv_inference_pending_request_count`), in an
// instance's queue, in the dynamic batcher and behind a sequence's earlier request, and how long the model took to load; and the batcher's queue
// policy (Triton's `default_queue_policy`). Each Python model here holds its execute until the test releases it, so
// what waits is known exactly (heldPythonModels.ts).

let s: Awaited<ReturnType<typeof startServer>>;
const models = heldModels({
  held: '',
  held_batched: 'max_batch_size: 4\ndynamic_batching {}',
  held_sequence: 'sequence_batching {}',
  // Triton's queue policy: two may wait; a request's own timeout replaces the 30 s default when shorter.
  held_policy: `max_batch_size: 4
dynamic_batching {
  priority_levels: 2
  default_priority_level: 1
  default_queue_policy { max_queue_size: 2, default_timeout_microseconds: 30000000, allow_timeout_override: true }
}`,
  // Triton's priority levels: level 1 first, 0 or above 3 means the default (2); level 1 holds one request at most.
  held_priority: `max_batch_size: 1
dynamic_batching {
  priority_levels: 3
  default_priority_level: 2
  priority_queue_policy { key: 1 value: { max_queue_size: 1 } }
}`,
});

beforeAll(async () => {
  s = await startServer({ repo: models.repo, port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
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

const infer = (name: string, batched: boolean, v: number, parameters: Record<string, unknown> = {}) =>
  call(`${s.url}/v2/models/${name}/infer`, 'POST', {
    inputs: [{ name: 'IN', datatype: 'FP32', shape: batched ? [1, 1] : [1], data: [v] }],
    parameters,
  });

describe("Triton's per-model gauges", () => {
  it('count the requests waiting for an instance, and none once they have run', async () => {
    expect(pending(await scrape(), 'held')).toBe(0);
    // One executes (held); the two sent after it wait in the instance's queue.
    const first = infer('held', false, 1);
    await models.started('held');
    const rest = [2, 3].map((v) => infer('held', false, v));
    expect(await pendingReaches('held', 2)).toBe(2);
    models.release('held');
    for (const r of await Promise.all([first, ...rest])) expect(r.status).toBe(200);
    expect(pending(await scrape(), 'held')).toBe(0);
  });

  it('count the requests waiting in the dynamic batcher behind an executing batch', async () => {
    const first = infer('held_batched', true, 1);
    await models.started('held_batched');
    // The instance is busy: the three sent now wait in the batcher, none of them executing.
    const rest = [2, 3, 4].map((v) => infer('held_batched', true, v));
    expect(await pendingReaches('held_batched', 3)).toBe(3);
    models.release('held_batched');
    for (const r of await Promise.all([first, ...rest])) expect(r.status).toBe(200);
    expect(pending(await scrape(), 'held_batched')).toBe(0);
  });

  it("count a sequence's requests waiting behind its request that executes", async () => {
    const sequence = (start: boolean, end: boolean) => ({ sequence_id: 7, sequence_start: start, sequence_end: end });
    const first = infer('held_sequence', false, 1, sequence(true, false));
    await models.started('held_sequence');
    // The sequence's next two requests run after it, one after the other (in whichever order they came): both wait.
    const rest = [2, 3].map((v) => infer('held_sequence', false, v, sequence(false, false)));
    expect(await pendingReaches('held_sequence', 2)).toBe(2);
    models.release('held_sequence');
    for (const r of await Promise.all([first, ...rest])) expect(r.status).toBe(200);
    expect((await infer('held_sequence', false, 4, sequence(false, true))).status).toBe(200);
    expect(pending(await scrape(), 'held_sequence')).toBe(0);
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

describe("Triton's queue policy (dynamic_batching.default_queue_policy)", () => {
  it('refuses a request past max_queue_size and one whose own timeout passed in the queue, counted REJECTED', async () => {
    const first = infer('held_policy', true, 1);
    await models.started('held_policy');
    // The instance is busy: these two wait, the second with a timeout of its own (50 ms, under the 30 s default).
    const late = infer('held_policy', true, 2, { timeout: 50_000 });
    const patient = infer('held_policy', true, 3);
    expect(await pendingReaches('held_policy', 2)).toBe(2);
    const full = await infer('held_policy', true, 4);
    expect([full.status, full.json.error]).toEqual([503, 'Exceeds maximum queue size']);
    await new Promise((r) => setTimeout(r, 100));
    models.release('held_policy');
    const [a, b, c] = await Promise.all([first, late, patient]);
    expect([a.status, c.status]).toEqual([200, 200]);
    expect([b.status, b.json.error]).toEqual([503, 'Request timeout expired']);
    expect(await scrape()).toMatch(
      /^nv_inference_request_failure\{model="held_policy",reason="REJECTED",version="1"\} 2$/m,
    );
  });
});

describe("Triton's priority levels (dynamic_batching.priority_levels)", () => {
  it("serves the waiting requests level by level, each level under its own policy, a request's priority as Triton reads it", async () => {
    const first = infer('held_priority', true, 1);
    await models.started('held_priority');
    // While 1 executes, one at a time (so they arrive in this order): 2 at level 3, 3 without a priority (the
    // default, 2), 4 at level 1, 5 above the levels (the default).
    const waiting: ReturnType<typeof infer>[] = [];
    for (const [v, priority] of [
      [2, 3],
      [3, 0],
      [4, 1],
      [5, 99],
    ] as const) {
      waiting.push(infer('held_priority', true, v, priority ? { priority } : {}));
      expect(await pendingReaches('held_priority', waiting.length)).toBe(waiting.length);
    }
    // Level 1's own policy holds one request; the default level has no bound.
    const full = await infer('held_priority', true, 6, { priority: 1 });
    expect([full.status, full.json.error]).toEqual([503, 'Exceeds maximum queue size']);
    waiting.push(infer('held_priority', true, 7, { priority: 2 }));
    expect(await pendingReaches('held_priority', 5)).toBe(5);
    models.release('held_priority');
    const done = await Promise.all([first, ...waiting]);
    expect(done.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(done.map((r) => r.json.outputs[0].data[0])).toEqual([1, 2, 3, 4, 5, 7]);
    await pendingReaches('held_priority', 0);
    expect(models.batches('held_priority')).toEqual([[1], [4], [3], [5], [7], [2]]);
  });
});
