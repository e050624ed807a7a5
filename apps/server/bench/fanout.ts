// Fan-out: two balanced branches run in parallel by the engine against the same two branches one after the
// other on the main thread, and against the machine's ceiling: two bare worker threads with their own sessions.
import type { Tensor } from '@ensemble-studio/core';
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
 * `fanout_speedup` (two det branches at 640×640) beside `fanout_raw_workers_speedup`, and
 * `fanout_engine_vs_raw_parallel`; then the same speedup for det at 160×640, two ~7 ms heads, and the heads
 * behind a shared extractor (whose time cannot overlap anything, so that speedup is lower by construction).
 */
export async function fanoutBench(ctx: BenchContext): Promise<void> {
  const { engine, direct, report } = ctx;
  const det = direct.det!;
  const detBranches = branchesGraph(
    'det',
    { name: 'x', dims: [1, 3, -1, -1] },
    { name: 'sigmoid_0.tmp_0', dims: [1, 1, -1, -1] },
    0,
  );
  const det640 = detInput(640, 640);
  const raw = await rawWorkerPair(ctx.repo.modelFile('det')!, { x: det640 });
  try {
    const four: Contender[] = [
      { name: 'fanout_sequential', run: () => directBranches(det, { x: det640 }), requests: 2 },
      { name: 'fanout_parallel', run: () => runOk(engine, detBranches, { x: det640 }), requests: 2 },
      { name: 'fanout_raw_sequential', run: raw.sequential, requests: 2 },
      { name: 'fanout_raw_parallel', run: raw.parallel, requests: 2 },
    ];
    const m = report.addMeasured(four, await measureBlocks(four, { blocks: ctx.blocks, trials: ctx.quick ? 2 : 4 }));
    report.add('fanout_raw_workers_speedup', perBlock(m.fanout_raw_sequential!, m.fanout_raw_parallel!, speedup));
    report.add('fanout_speedup', perBlock(m.fanout_sequential!, m.fanout_parallel!, speedup), [
      'fanout_raw_workers_speedup',
    ]);
    report.add(
      'fanout_engine_vs_raw_parallel',
      perBlock(m.fanout_parallel!, m.fanout_raw_parallel!, (e, r) => e / r),
      ['fanout_raw_parallel_ms'],
    );
  } finally {
    await raw.close();
  }

  const pair = async (name: string, seq: () => Promise<unknown>, par: () => Promise<unknown>, trials: number) => {
    const two: Contender[] = [
      { name: `${name}_sequential`, run: seq, requests: 2 },
      { name: `${name}_parallel`, run: par, requests: 2 },
    ];
    const t = report.addMeasured(two, await measureBlocks(two, { blocks: ctx.blocks, trials }));
    report.add(`${name}_speedup`, perBlock(t[`${name}_sequential`]!, t[`${name}_parallel`]!, speedup));
  };
  const det160 = detInput(160, 640);
  await pair(
    'fanout_det160',
    () => directBranches(det, { x: det160 }),
    () => runOk(engine, detBranches, { x: det160 }),
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
  await pair(
    'fanout_head',
    () => directBranches(direct.head!, { feat }),
    () => runOk(engine, headBranches, { feat }),
    ctx.quick ? 5 : 10,
  );
  const x: Tensor = {
    datatype: 'FP32',
    shape: [64, SYNTHETIC.D],
    data: Float32Array.from({ length: 64 * SYNTHETIC.D }, (_, i) => Math.sin(i)),
  };
  await pair(
    'fanout_extractor',
    () => directFanout(direct, x),
    () => runOk(engine, fanoutGraph(), { x }),
    ctx.quick ? 5 : 10,
  );
}
