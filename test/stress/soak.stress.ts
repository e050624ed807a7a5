// Soak: thousands of runs and sequences opened and closed over /ws on one in-process server; reports heap and RSS
// growth (after GC when exposed) and asserts no run lost, no sequence left bound, growth under generous bounds.
// Env: SOAK_RUNS (default 3000), SOAK_SEQUENCES (default 1000).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../apps/server/src/main.ts';
import { startStudio } from '../support/server.ts';
import { mb, report } from '../support/workload.ts';
import { connect, type Msg } from '../support/wsClient.ts';

const RUNS = Number(process.env.SOAK_RUNS ?? 3000);
const SEQUENCES = Number(process.env.SOAK_SEQUENCES ?? 1000);
const terminal = (m: Msg) => ['run.completed', 'run.failed', 'run.exited_early'].includes(m.type);
const gc = (globalThis as { gc?: () => void }).gc;

let server: RunningServer;
beforeAll(async () => {
  server = await startStudio();
}, 120_000);
afterAll(async () => {
  await server?.close();
});

function memory() {
  gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

describe('soak', () => {
  it(`${RUNS} runs and ${SEQUENCES} sequences: nothing lost, nothing left bound, bounded memory`, async () => {
    const x = { datatype: 'FP32', shape: [1, 64], data: Array.from({ length: 64 }, (_, i) => i / 64) };
    const warm = await connect(server.url);
    for (let i = 0; i < 50; i++) {
      const from = warm.messages.length;
      warm.send({ type: 'run.start', requestId: `w${i}`, graph: 'pipe', inputs: { x } });
      await warm.next(terminal, 60_000, from);
    }
    warm.close();
    const before = memory();
    const t0 = performance.now();
    let completed = 0,
      sequencesEnded = 0;
    // 8 sockets × batches of 8 runs in flight, sockets replaced every 200 runs (connections opened and closed too)
    const worker = async (k: number) => {
      let c = await connect(server.url);
      for (let i = k; i < RUNS; i += 8) {
        if (i % 200 < 8) {
          c.close();
          c = await connect(server.url);
        }
        const from = c.messages.length;
        c.send({ type: 'run.start', requestId: `r${i}`, graph: 'pipe', inputs: { x } });
        const end = await c.next(terminal, 60_000, from);
        if (end.type === 'run.completed') completed++;
        if (c.messages.length > 1000) c.messages.splice(0, c.messages.length); // keep the client's own memory flat
      }
      for (let j = k; j < SEQUENCES; j += 8) {
        const from = c.messages.length;
        const streamId = `seq${j}`;
        c.send({ type: 'stream.open', streamId, graph: 'acc', sequenceId: 100_000 + j });
        for (let n = 0; n < 3; n++)
          c.send({
            type: 'stream.append',
            streamId,
            inputs: { x: { datatype: 'FP32', shape: [1, 8], data: [1, 1, 1, 1, 1, 1, 1, 1] } },
            ...(n === 2 ? { end: true } : {}),
          });
        const ended = await c.next((m) => m.type === 'sequence.ended' && m.streamId === streamId, 60_000, from);
        if (ended.reason === 'end') sequencesEnded++;
        if (c.messages.length > 1000) c.messages.splice(0, c.messages.length);
      }
      c.close();
    };
    await Promise.all(Array.from({ length: 8 }, (_, k) => worker(k)));
    const secs = (performance.now() - t0) / 1000;
    await expect.poll(() => server.studio.engine.sequences().length, { timeout: 10_000 }).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    const after = memory();
    report(
      `soak: ${RUNS} runs (${completed} completed) + ${SEQUENCES} sequences × 3 chunks (${sequencesEnded} ended) in ${secs.toFixed(1)} s (${((RUNS + 3 * SEQUENCES) / secs).toFixed(0)} runs/s); heap ${mb(before.heap)} → ${mb(after.heap)} MB, RSS ${mb(before.rss)} → ${mb(after.rss)} MB${gc ? ' (after GC)' : ' (no --expose-gc)'}`,
    );
    expect(completed).toBe(RUNS);
    expect(sequencesEnded).toBe(SEQUENCES);
    expect(server.studio.runsInFlight).toBe(0);
    expect(after.rss - before.rss).toBeLessThan(200 * 1024 * 1024);
    expect(after.heap - before.heap).toBeLessThan(100 * 1024 * 1024);
  });
});
