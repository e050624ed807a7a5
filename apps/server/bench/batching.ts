// Sequence batching under `oldest`: 64 sequences of 20 steps on the accumulator, batched by the engine against
// the same sequences unbatched (`direct` strategy, in a second engine's process), and against the ceiling: the
// session called directly on batches of all 64 sequences, step by step (in the direct loop's process).
import * as ort from 'onnxruntime-node';
import { singleModelGraph } from '../src/testing/engineGraphs.ts';
import { SYNTHETIC } from '../src/onnx/synthetic.ts';
import { type BenchContext, type DirectSide, type EngineSide, runOk } from './context.ts';
import type { Task } from './contenderProcess.ts';
import { measureBlocks } from './measure.ts';
import { perBlock } from './stats.ts';

const SEQUENCES = 64;
const STEPS = 20;

/** The engine's side: `oldest_batched` and `oldest_unbatched`, all 64 sequences of 20 steps at once. */
export function batchingEngineTasks({ engine, repo }: EngineSide): Record<string, Task> {
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
  const engineRun = (direct: boolean) => {
    const g = accGraph(direct);
    const tag = direct ? 'u' : 'b';
    return async () => {
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
  };
  return { oldest_unbatched: engineRun(true), oldest_batched: engineRun(false) };
}

/** The direct side: `oldest_direct_batched`, the accumulator session on batches of all 64 sequences, 20 steps. */
export function batchingDirectTasks({ direct }: DirectSide): Record<string, Task> {
  const S = SYNTHETIC.S;
  const session = direct.accumulator!;
  const x = new ort.Tensor('float32', new Float32Array(SEQUENCES * S).fill(1), [SEQUENCES, S]);
  return {
    oldest_direct_batched: async () => {
      let state: ort.Tensor = new ort.Tensor('float32', new Float32Array(SEQUENCES * S), [SEQUENCES, S]);
      for (let k = 0; k < STEPS; k++) state = (await session.run({ x, state_in: state })).state_out!;
    },
  };
}

/**
 * `oldest_batching_speedup` (the unbatched engine, in a process of its own, over the batched one), beside
 * `oldest_batched_vs_direct_batched` (engine batched / session on batches of 64).
 */
export async function oldestBatchingBench(ctx: BenchContext): Promise<void> {
  const { report } = ctx;
  const [unbatched, batched, direct] = await Promise.all([
    ctx.host('engine_b'),
    ctx.host('engine'),
    ctx.host('direct'),
  ]);
  const requests = SEQUENCES * STEPS;
  const contenders = [
    unbatched.contender('oldest_unbatched', requests),
    batched.contender('oldest_batched', requests),
    direct.contender('oldest_direct_batched', requests),
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
