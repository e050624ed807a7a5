// Sequence batching under `oldest`: 64 sequences of 20 steps on the accumulator, batched by the engine against
// the same sequences unbatched (`direct` strategy), and against the ceiling: the session called directly on
// batches of all 64 sequences, step by step.
import * as ort from 'onnxruntime-node';
import type { GraphDoc } from '@ensemble-studio/core';
import { singleModelGraph } from '../src/testing/engineGraphs.ts';
import { SYNTHETIC } from '../src/onnx/synthetic.ts';
import { type BenchContext, runOk } from './context.ts';
import { measureBlocks, type Contender } from './measure.ts';
import { perBlock } from './stats.ts';

const SEQUENCES = 64;
const STEPS = 20;

/** `oldest_batching_speedup`, beside `oldest_batched_vs_direct_batched` (engine batched / session on batches of 64). */
export async function oldestBatchingBench(ctx: BenchContext): Promise<void> {
  const { engine, repo, report } = ctx;
  const S = SYNTHETIC.S;
  const sequenceBatching = repo.catalogue.models.accumulator!.config.sequence_batching;
  const accGraph = (direct: boolean) =>
    singleModelGraph(
      'accumulator',
      [{ name: 'x', dims: [S] }],
      [{ name: 'y', dims: [S] }],
      SEQUENCES,
      direct ? { sequence_batching: { ...sequenceBatching, oldest: undefined, direct: {} } } : undefined,
    );
  let round = 0;
  const engineRun = async (g: GraphDoc, tag: string) => {
    const r = round++;
    await Promise.all(
      Array.from({ length: SEQUENCES }, async (_, s) => {
        const id = `${tag}-${r}-${s}`;
        for (let k = 0; k < STEPS; k++)
          await runOk(
            engine,
            g,
            { x: { datatype: 'FP32', shape: [1, S], data: new Float32Array(S).fill(1) } },
            { id, start: k === 0, end: k === STEPS - 1 },
          );
      }),
    );
  };
  const session = ctx.direct.accumulator!;
  const x = new ort.Tensor('float32', new Float32Array(SEQUENCES * S).fill(1), [SEQUENCES, S]);
  const directBatched = async () => {
    let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(SEQUENCES * S), [SEQUENCES, S]);
    for (let k = 0; k < STEPS; k++) state = (await session.run({ x, state_in: state })).state_out!;
  };
  const [unbatched, batched] = [accGraph(true), accGraph(false)];
  const contenders: Contender[] = [
    { name: 'oldest_unbatched', run: () => engineRun(unbatched, 'u'), requests: SEQUENCES * STEPS },
    { name: 'oldest_batched', run: () => engineRun(batched, 'b'), requests: SEQUENCES * STEPS },
    { name: 'oldest_direct_batched', run: directBatched, requests: SEQUENCES * STEPS },
  ];
  const m = report.addMeasured(
    contenders,
    await measureBlocks(contenders, { blocks: ctx.blocks, trials: ctx.quick ? 2 : 4 }),
  );
  report.add(
    'oldest_batched_vs_direct_batched',
    perBlock(m.oldest_batched!, m.oldest_direct_batched!, (e, d) => e / d),
  );
  report.add(
    'oldest_batching_speedup',
    perBlock(m.oldest_unbatched!, m.oldest_batched!, (u, b) => u / b),
    ['oldest_batched_vs_direct_batched', 'oldest_direct_batched_ms'],
  );
}
