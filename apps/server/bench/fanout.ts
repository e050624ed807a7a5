// Fan-out: two balanced branches run in parallel by the engine against the same two branches one after the
// other on the main thread, and against the machine's ceiling: two bare worker threads with their own sessions.
import { catalogueModel, type Tensor } from '@ensemble-studio/core';
import { workerNice } from '../src/engine/modelSetup.ts';
import { branchesGraph, fanoutGraph } from '../src/testing/engineGraphs.ts';
import { SYNTHETIC } from '../src/onnx/synthetic.ts';
import { type BenchContext, runOk } from './context.ts';
import { directBranches, directFanout } from './direct.ts';
import { measureBlocks, type Contender } from './measure.ts';
import { rawWorkerPair } from './rawWorkers.ts';
import { perBlock } from './stats.ts';

const detInput = (h: number, w: number): Tensor => ({
  datatype: 'FP32',
  shape: [1, 3, h, w],
  data: Float32Array.from({ length: 3 * h * w }, (_, i) => Math.sin(i * 0.01)),
});

const speedup = (seq: number, par: number) => seq / par;

/**
 * `<name>_speedup`: the two branches one after the other on the main thread (`seq`) against the engine running
 * them (`par`); with `raw`, beside the same two branches in two bare workers (`<name>_raw_workers_speedup`) and
 * with `<name>_engine_vs_raw_parallel` (the engine's parallel time over the bare workers').
 */
async function compareBranches(
  ctx: BenchContext,
  name: string,
  seq: () => Promise<unknown>,
  par: () => Promise<unknown>,
  raw: { model: string; feeds: Record<string, Tensor> } | undefined,
  trials: number,
): Promise<void> {
  const { report } = ctx;
  const bare = (r: { model: string; feeds: Record<string, Tensor> }) =>
    rawWorkerPair(
      ctx.repo.modelFile(r.model)!,
      r.feeds,
      workerNice(catalogueModel(ctx.repo.catalogue, r.model)!.config),
    );
  // The bare sequential contender gets workers of its own: on the parallel pair's, their first worker ran three times
  // as often as either engine instance and got past a new tensor size's fresh-page transient sooner, which made
  // the ceiling look cheaper than it is (engine README, "Fan-out").
  const pair = raw ? await bare(raw) : undefined;
  const seqPair = raw ? await bare(raw) : undefined;
  try {
    const contenders: Contender[] = [
      { name: `${name}_sequential`, run: seq, requests: 2 },
      { name: `${name}_parallel`, run: par, requests: 2 },
    ];
    if (pair && seqPair)
      contenders.push(
        { name: `${name}_raw_sequential`, run: seqPair.sequential, requests: 2 },
        { name: `${name}_raw_parallel`, run: pair.parallel, requests: 2 },
      );
    const t = report.addMeasured(contenders, await measureBlocks(contenders, { blocks: ctx.blocks, trials }));
    const own = perBlock(t[`${name}_sequential`]!, t[`${name}_parallel`]!, speedup);
    if (!pair) {
      report.add(`${name}_speedup`, own);
      return;
    }
    report.add(
      `${name}_raw_workers_speedup`,
      perBlock(t[`${name}_raw_sequential`]!, t[`${name}_raw_parallel`]!, speedup),
    );
    report.add(`${name}_speedup`, own, [`${name}_raw_workers_speedup`]);
    const vsRaw = perBlock(t[`${name}_parallel`]!, t[`${name}_raw_parallel`]!, (e, r) => e / r);
    report.add(`${name}_engine_vs_raw_parallel`, vsRaw, [`${name}_raw_parallel_ms`]);
  } finally {
    await Promise.all([pair?.close(), seqPair?.close()]);
  }
}

/**
 * `fanout_speedup` (two det branches at 640×640) beside `fanout_raw_workers_speedup`, and
 * `fanout_engine_vs_raw_parallel`; the same for det at 160×640 and two ~7 ms heads; and the heads behind a
 * shared extractor (whose time cannot overlap anything, so that speedup is lower by construction; no bare pair).
 */
export async function fanoutBench(ctx: BenchContext): Promise<void> {
  const { engine, direct } = ctx;
  const det = direct.det!;
  const detBranches = branchesGraph(
    'det',
    { name: 'x', dims: [1, 3, -1, -1] },
    { name: 'sigmoid_0.tmp_0', dims: [1, 1, -1, -1] },
    0,
  );
  const det640 = detInput(640, 640);
  await compareBranches(
    ctx,
    'fanout',
    () => directBranches(det, { x: det640 }),
    () => runOk(engine, detBranches, { x: det640 }),
    { model: 'det', feeds: { x: det640 } },
    ctx.quick ? 2 : 4,
  );
  const det160 = detInput(160, 640);
  await compareBranches(
    ctx,
    'fanout_det160',
    () => directBranches(det, { x: det160 }),
    () => runOk(engine, detBranches, { x: det160 }),
    { model: 'det', feeds: { x: det160 } },
    ctx.quick ? 3 : 6,
  );
  const feat: Tensor = {
    datatype: 'FP32',
    shape: [64, SYNTHETIC.F],
    data: Float32Array.from({ length: 64 * SYNTHETIC.F }, (_, i) => Math.sin(i)),
  };
  const headBranches = branchesGraph(
    'head',
    { name: 'feat', dims: [SYNTHETIC.F] },
    { name: 'logits', dims: [SYNTHETIC.C] },
    64,
  );
  await compareBranches(
    ctx,
    'fanout_head',
    () => directBranches(direct.head!, { feat }),
    () => runOk(engine, headBranches, { feat }),
    { model: 'head', feeds: { feat } },
    ctx.quick ? 5 : 10,
  );
  const x: Tensor = {
    datatype: 'FP32',
    shape: [64, SYNTHETIC.D],
    data: Float32Array.from({ length: 64 * SYNTHETIC.D }, (_, i) => Math.sin(i)),
  };
  await compareBranches(
    ctx,
    'fanout_extractor',
    () => directFanout(direct, x),
    () => runOk(engine, fanoutGraph(), { x }),
    undefined,
    ctx.quick ? 5 : 10,
  );
}
