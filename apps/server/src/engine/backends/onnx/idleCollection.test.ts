import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { COLLECT_ABOVE_BYTES, IdleCollector, tensorBytes, v8Collection } from './idleCollection.ts';

/** A collector whose collections are recorded rather than run. */
function recorded(): { idle: IdleCollector; runs: string[] } {
  const runs: string[] = [];
  return { idle: new IdleCollector((type) => runs.push(type)), runs };
}

describe('IdleCollector', () => {
  it('collects the young generation at the next idle turn once the engine is idle', async () => {
    const { idle, runs } = recorded();
    idle.replied(COLLECT_ABOVE_BYTES + 1);
    await sleep(5);
    expect(runs).toEqual([]); // not while a run may still be in flight
    idle.engineIdle();
    expect(runs).toEqual([]); // nor inside the message's own turn
    await sleep(5);
    expect(runs).toEqual(['minor']);
  });

  it('leaves small requests to V8 until together they pass the threshold', async () => {
    const { idle, runs } = recorded();
    const third = Math.ceil(COLLECT_ABOVE_BYTES / 3);
    idle.replied(third);
    idle.replied(third);
    idle.engineIdle();
    await sleep(5);
    expect(runs).toEqual([]);
    idle.replied(third);
    idle.engineIdle();
    await sleep(5);
    expect(runs).toEqual(['minor']);
    idle.replied(third); // the count starts again after a collection
    idle.engineIdle();
    await sleep(5);
    expect(runs).toEqual(['minor']);
  });

  it('holds off when a request arrives first, keeping what is owed for the next idle engine', async () => {
    const { idle, runs } = recorded();
    idle.replied(COLLECT_ABOVE_BYTES * 2);
    idle.engineIdle();
    idle.busy(); // the next request arrived before the thread's next turn
    await sleep(5);
    expect(runs).toEqual([]);
    idle.replied(0);
    idle.engineIdle();
    await sleep(5);
    expect(runs).toEqual(['minor']);
  });

  it('collects in full after a failed request, without waiting for the engine to be idle', async () => {
    const { idle, runs } = recorded();
    idle.failed();
    await sleep(5);
    idle.replied(COLLECT_ABOVE_BYTES + 1);
    idle.engineIdle();
    await sleep(5);
    expect(runs).toEqual(['major', 'minor']);
  });
});

describe('tensorBytes', () => {
  it('counts each distinct ArrayBuffer once, and neither shared buffers nor JS arrays', () => {
    const whole = new ArrayBuffer(4096);
    const bytes = tensorBytes([
      { data: new Float32Array(256) },
      { data: new Uint8Array(whole, 0, 16) },
      { data: new Uint8Array(whole, 16, 16) },
      { data: new Float32Array(new SharedArrayBuffer(64)) },
      { data: ['a', 'b'] },
    ]);
    expect(bytes).toBe(1024 + 4096);
  });
});

describe('v8Collection', () => {
  it("runs V8's young-generation and full collections on request", async () => {
    const forced: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const { kind, flags } = (e as unknown as { detail: { kind: number; flags: number } }).detail;
        if (flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) forced.push(kind);
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      const collect = v8Collection();
      collect('minor');
      collect('major');
      for (let i = 0; i < 50 && forced.length < 2; i++) await sleep(5);
    } finally {
      observer.disconnect();
    }
    expect(forced).toEqual([constants.NODE_PERFORMANCE_GC_MINOR, constants.NODE_PERFORMANCE_GC_MAJOR]);
  });
});
