// Load: N WebSocket clients streaming VAD sequences in real time + M clients running `ocr`, for a fixed duration,
// against the real CLI server process on loopback. Reports throughput and latency; asserts that every stream's
// per-chunk results equal its sequential reference (max abs diff ≤ 1e-5) and that nothing is lost or misrouted.
// Env: STRESS_SECONDS (default 20), STRESS_VAD_STREAMS (default 32), STRESS_OCR_CLIENTS (default 2).
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR, spawnStudio, type StudioProcess } from '../support/server.ts';
import { maxAbsDiff, ocrImage, percentile, report, runOcr, streamVad, vadChunks } from '../support/workload.ts';
import { connect } from '../support/wsClient.ts';

const SECONDS = Number(process.env.STRESS_SECONDS ?? 20);
const N = Number(process.env.STRESS_VAD_STREAMS ?? 32);
const M = Number(process.env.STRESS_OCR_CLIENTS ?? 2);
const CHUNKS = 40; // 40 × 32 ms = 1.28 s of audio per sequence
const VARIANTS = 4; // streams start at different offsets of the recording, so a misrouted state shows

let studio: StudioProcess;
beforeAll(async () => {
  studio = await spawnStudio(EXAMPLES_DIR);
}, 180_000);
afterAll(async () => {
  studio?.child.kill('SIGTERM');
  await studio?.exited;
});

describe('load', () => {
  it(`${N} real-time VAD streams + ${M} OCR clients for ${SECONDS} s: correct, nothing lost`, async () => {
    const chunks = Array.from({ length: VARIANTS }, (_, v) => vadChunks(CHUNKS, v * 37));
    const image = ocrImage('hello.png');
    // sequential references on an idle server
    const refClient = await connect(studio.url);
    const refs: number[][] = [];
    for (const c of chunks) {
      const r = await streamVad(refClient, c);
      expect(r.errors).toEqual([]);
      refs.push(r.probs);
    }
    const ocrRef = await runOcr(refClient, image);
    expect(ocrRef.end.type).toBe('run.completed');
    const ocrTexts = JSON.stringify(ocrRef.end.outputs.texts.data);
    refClient.close();

    const stopAt = Date.now() + SECONDS * 1000;
    const chunkMs: number[] = [];
    const ocrMs: number[] = [];
    let sequences = 0,
      chunksDone = 0,
      worstDiff = 0,
      ocrRuns = 0;
    const failures: string[] = [];
    const vadClient = async (k: number) => {
      const c = await connect(studio.url);
      for (let round = 0; Date.now() < stopAt; round++) {
        const v = (k + round) % VARIANTS;
        const r = await streamVad(c, chunks[v]!, { paceMs: 32 });
        sequences++;
        chunksDone += r.probs.filter(Number.isFinite).length;
        chunkMs.push(...r.chunkMs);
        const diff = maxAbsDiff(r.probs, refs[v]!);
        worstDiff = Math.max(worstDiff, diff);
        if (r.errors.length > 0 || diff > 1e-5 || r.ended?.reason !== 'end')
          failures.push(
            `client ${k} round ${round}: diff ${diff} ended ${JSON.stringify(r.ended)} ${r.errors.slice(0, 2).join('; ')}`,
          );
      }
      c.close();
    };
    const ocrClient = async () => {
      const c = await connect(studio.url);
      while (Date.now() < stopAt) {
        const { end, ms } = await runOcr(c, image);
        ocrRuns++;
        ocrMs.push(ms);
        if (end.type !== 'run.completed' || JSON.stringify(end.outputs.texts.data) !== ocrTexts)
          failures.push(`ocr: ${end.type} ${JSON.stringify(end.error ?? end.outputs?.texts?.data)}`);
      }
      c.close();
    };
    const t0 = performance.now();
    await Promise.all([
      ...Array.from({ length: N }, (_, k) => vadClient(k)),
      ...Array.from({ length: M }, () => ocrClient()),
    ]);
    const secs = (performance.now() - t0) / 1000;
    report(
      `load: machine ${os.cpus().length} cores, Node ${process.version}; ${N} VAD streams (real time) + ${M} OCR clients for ${secs.toFixed(1)} s`,
    );
    report(
      `load: VAD ${sequences} sequences, ${chunksDone} chunks (${(chunksDone / secs).toFixed(0)} chunks/s), chunk latency p50 ${percentile(chunkMs, 50).toFixed(1)} ms p99 ${percentile(chunkMs, 99).toFixed(1)} ms, max abs diff vs reference ${worstDiff.toExponential(2)}`,
    );
    report(
      `load: OCR ${ocrRuns} runs (${(ocrRuns / secs).toFixed(2)}/s), latency p50 ${percentile(ocrMs, 50).toFixed(0)} ms p99 ${percentile(ocrMs, 99).toFixed(0)} ms; errors ${failures.length}`,
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(sequences).toBeGreaterThanOrEqual(N);
    expect(chunksDone).toBe(sequences * CHUNKS);
    expect(ocrRuns).toBeGreaterThanOrEqual(M);
  });
});
