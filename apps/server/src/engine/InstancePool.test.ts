import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { workerInstances, type RequestBody, type WorkerResult } from './backends/onnx/WorkerInstance.ts';
import { InstancePool } from './InstancePool.ts';
import { makeTestRepository } from '../testing/engineFixtures.ts';
import { SYNTHETIC } from '../onnx/synthetic.ts';
import type { PortableTensor } from './backends/onnx/workerProtocol.ts';

const repo = makeTestRepository(['head', 'accumulator']);
const pools: InstancePool<RequestBody, WorkerResult>[] = [];

function headPool(count: number, pipelineDepth = 1, nice = 0): InstancePool<RequestBody, WorkerResult> {
  const pool = new InstancePool({
    name: 'head',
    count,
    pipelineDepth,
    create: workerInstances({
      kind: 'model',
      model: 'head',
      path: repo.modelFile('head')!,
      providers: ['cpu'],
      intraOpThreads: 1,
      nice,
      warmup: [],
      repoDir: repo.dir,
    }),
  });
  pools.push(pool);
  return pool;
}

function feat(rows: number, value: number): Record<string, PortableTensor> {
  return {
    feat: { datatype: 'FP32', shape: [rows, SYNTHETIC.F], data: new Float32Array(rows * SYNTHETIC.F).fill(value) },
  };
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('InstancePool', () => {
  it('runs one request per instance at a time and queues the rest', async () => {
    const pool = headPool(2);
    await pool.start();
    const runs = [1, 2, 3, 4].map((v) => pool.run({ type: 'run', feeds: feat(64, v), summarize: false }, []));
    expect([pool.isBusy(0), pool.isBusy(1), pool.queued]).toEqual([true, true, 2]);
    const results = await Promise.all(runs);
    expect(new Set(results.map((r) => r.instance))).toEqual(new Set(['head_0', 'head_1']));
    for (const r of results) expect(r.result.outputs.logits!.shape).toEqual([64, SYNTHETIC.C]);
    // Different inputs give different outputs: results come back to their own callers.
    const firsts = results.map((r) => (r.result.outputs.logits!.data as Float32Array)[0]);
    expect(new Set(firsts).size).toBe(4);
    await pool.onIdle();
  });

  it('pipelines: a busy worker gets one more request only when no instance is idle, the rest queue', async () => {
    const pool = headPool(2, 2);
    await pool.start();
    const runs = [1, 2, 3, 4, 5].map((v) => pool.run({ type: 'run', feeds: feat(64, v), summarize: false }, []));
    // Two per worker (one running, one waiting in its port), the fifth in the pool's queue.
    expect([pool.isBusy(0), pool.isBusy(1), pool.queued]).toEqual([true, true, 1]);
    const results = await Promise.all(runs);
    const perInstance = results.reduce<Record<string, number>>(
      (acc, r) => ({ ...acc, [r.instance]: (acc[r.instance] ?? 0) + 1 }),
      {},
    );
    expect(Object.values(perInstance).sort()).toEqual([2, 3]);
    const firsts = results.map((r) => (r.result.outputs.logits!.data as Float32Array)[0]);
    expect(new Set(firsts).size).toBe(5);
    await pool.onIdle();
  });

  it('transfers input buffers instead of copying them', async () => {
    const pool = headPool(1);
    await pool.start();
    const feeds = feat(1, 1);
    const buf = (feeds.feat!.data as Float32Array).buffer as ArrayBuffer;
    await pool.run({ type: 'run', feeds, summarize: false }, [buf]);
    expect(buf.byteLength).toBe(0); // detached: it moved to the worker
  });

  it('drops a queued request when its signal aborts and releases a running one at once', async () => {
    const pool = headPool(1);
    await pool.start();
    const running = new AbortController();
    const queued = new AbortController();
    const a = pool.run({ type: 'run', feeds: feat(64, 1), summarize: false }, [], { signal: running.signal });
    const b = pool.run({ type: 'run', feeds: feat(64, 2), summarize: false }, [], { signal: queued.signal });
    const c = pool.run({ type: 'run', feeds: feat(64, 3), summarize: false }, []);
    expect(pool.queued).toBe(2);
    queued.abort();
    expect(pool.queued).toBe(1);
    await expect(b).rejects.toMatchObject({ code: 'cancelled' });
    running.abort();
    await expect(a).rejects.toMatchObject({ code: 'cancelled' });
    expect(pool.isBusy(0)).toBe(true); // onnxruntime is still finishing the abandoned run
    await expect(c).resolves.toMatchObject({ instance: 'head_0' });
  });

  it("counts a job's requests as executing from dispatch until its caller is answered, an abort included", async () => {
    const pool = headPool(1);
    await pool.start();
    const running = new AbortController();
    // A batch of three requests runs; a lone request waits behind it and is not executing yet.
    const batch = pool.run({ type: 'run', feeds: feat(64, 1), summarize: false }, [], {
      signal: running.signal,
      requests: 3,
    });
    const lone = pool.run({ type: 'run', feeds: feat(64, 2), summarize: false }, []);
    expect([pool.executing, pool.queued]).toEqual([3, 1]);
    // Released by its abort while onnxruntime finishes it: its callers are answered, so it stops counting.
    running.abort();
    await expect(batch).rejects.toMatchObject({ code: 'cancelled' });
    expect(pool.executing).toBe(0);
    expect(pool.isBusy(0)).toBe(true);
    await lone;
    expect(pool.executing).toBe(0);
    await pool.onIdle();
    expect(pool.executing).toBe(0);
  });

  it('fails the in-flight request of a crashed worker with a clear error and restarts it', async () => {
    const pool = headPool(1);
    await pool.start();
    const crashes: string[] = [];
    pool.onCrash((i, err) => crashes.push(`${i}:${err.code}`));
    pool.crashInstance(0);
    const inflight = pool.run({ type: 'run', feeds: feat(1, 1), summarize: false }, [], { pin: 0 });
    await expect(inflight).rejects.toMatchObject({
      code: 'instance-crashed',
      message: expect.stringContaining('head_0'),
    });
    expect(crashes).toEqual(['0:instance-crashed']);
    const after = await pool.run({ type: 'run', feeds: feat(1, 1), summarize: false }, [], { pin: 0 });
    expect(after.result.outputs.logits!.shape).toEqual([1, SYNTHETIC.C]);
    expect(pool.restarts).toBe(1);
  });

  it.runIf(existsSync('/proc/self/task'))('runs its workers at the nice value the spec asks for (Linux)', async () => {
    // Field 19 of /proc/<pid>/task/<tid>/stat is the thread's nice value (after the parenthesised name).
    const nices = () =>
      readdirSync('/proc/self/task').map((tid) =>
        Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
      );
    const before = nices().filter((n) => n === 7).length;
    await headPool(2, 1, 7).start();
    expect(nices().filter((n) => n === 7).length - before).toBe(2);
  });

  it('has the worker the next request goes to poll for it (spinNext), and only while one is idle', async () => {
    const pool = headPool(2);
    await pool.start();
    const run = () => pool.run({ type: 'run', feeds: feat(1, 1), summarize: false }, []);
    expect(pool.spinNext(60e9)).toBe(true); // 60 s: the request must end the poll, not the budget
    const polled = await run();
    // The worker took the request from its port while polling, and its reply says so and when.
    expect(polled.instance).toBe('head_0');
    expect(polled.result.spun).toBe(true);
    expect(polled.result.arrivedNs).toBeGreaterThan(0);
    const asleep = await run();
    expect(asleep.result.spun).toBe(false); // one poll is for one request
    const both = [run(), run()];
    expect(pool.spinNext(1e6)).toBe(false); // none idle
    const queued = run();
    expect(pool.spinNext(1e6)).toBe(false);
    await Promise.all([...both, queued]);
  });

  it('reports a model that cannot load', async () => {
    const pool = new InstancePool({
      name: 'broken',
      count: 1,
      create: workerInstances({
        kind: 'model',
        model: 'broken',
        path: '/nonexistent/model.onnx',
        providers: ['cpu'],
        intraOpThreads: 1,
        nice: 0,
        warmup: [],
        repoDir: '/nonexistent',
      }),
    });
    pools.push(pool);
    await expect(pool.start()).rejects.toMatchObject({ code: 'model-unavailable' });
  });
});
