// A child process for runClosures.test.ts (run with `--import countNameDefines.mjs --import tsx`): streams of the
// VAD graph through a real engine, printing how many function names tsx defined per chunk once the engine is warm.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../engine/index.ts';
import { writeEngineRepository } from './engineFixtureRepository.ts';
import { vadGraph } from './engineGraphs.ts';

const CHUNK = 576;
const dir = mkdtempSync(join(tmpdir(), 'named-closures-'));
const graph = vadGraph();
const audio = new Float32Array(CHUNK).fill(0.01);
const counted = () => (globalThis as { nameDefines?: number }).nameDefines ?? Number.NaN;

async function streams(round: string, count: number, chunks: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, s) => {
      for (let k = 0; k < chunks; k++) {
        const r = await engine.run({
          graph,
          inputs: { audio: { datatype: 'FP32', shape: [CHUNK], data: audio } },
          sequence: { id: `${round}-${s}`, start: k === 0, end: k === chunks - 1 },
        });
        if (r.status !== 'completed') throw new Error(`${r.error?.code}: ${r.error?.message}`);
      }
    }),
  );
}

// One VAD instance and one op worker: the fewest threads that boot tsx (seconds of CPU each under load).
const repository = writeEngineRepository(dir, ['vad'], { vad: { instance_group: [{ count: 1, kind: 'KIND_CPU' }] } });
const engine = await Engine.create({ repository, opWorkers: 1 });
try {
  await streams('warm', 4, 10);
  const before = counted();
  // No START or END among the counted chunks: a sequence's binding and its end are not the per-chunk path.
  const ids = ['a', 'b', 'c', 'd'];
  await Promise.all(ids.map((id) => engine.run(chunk(id, true, false))));
  const mid = counted();
  for (let k = 0; k < 20; k++) await Promise.all(ids.map((id) => engine.run(chunk(id, false, false))));
  const after = counted();
  process.stdout.write(`${JSON.stringify({ perChunk: (after - mid) / (20 * ids.length), warm: before })}\n`);
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

function chunk(id: string, start: boolean, end: boolean) {
  return {
    graph,
    inputs: { audio: { datatype: 'FP32' as const, shape: [CHUNK], data: audio } },
    sequence: { id, start, end },
  };
}
