// Fan-out: two balanced branches run in parallel by the engine against the same two branches one after the
// other on a main thread (the direct loop's process), and against the machine's ceiling: two bare worker threads
// with their own sessions (one pair for the sequential run, another for the parallel one, each in a process of its own).
import { catalogueModel, type GraphDoc, type Tensor } from '@ensemble-studio/core';
import { workerNice } from '../src/engine/modelSetup.ts';
import { branchesGraph, fanoutGraph } from '../src/testing/engineGraphs.ts';
import { SYNTHETIC } from '../src/onnx/synthetic.ts';
import { type BenchContext, type DirectSide, type EngineSide, runOk, type Side } from './context.ts';
import type { Hosted, Task } from './contenderProcess.ts';
import { directBranches, directFanout } from './direct.ts';
import { measureBlocks } from './measure.ts';
import { type RawPair, rawWorkerPair } from './rawWorkers.ts';
import { perBlock } from './stats.ts';

const wave = (n: number, step: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * step));

/** One fan-out comparison: the model both branches run, their feeds, and the trials per block. */
interface FanoutCase {
  name: string;
  model: string;
  /** The engine's graph (for `fanout_extractor`: the shared extractor, then the two heads). */
  graph: GraphDoc;
  feeds: Record<string, Tensor>;
  trials: number;
  /** Compared with bare workers too (not behind the shared extractor: its time cannot overlap anything). */
  bare: boolean;
}

/** The cases, built alike in every process (the feeds are deterministic). */
function fanoutCases(quick: boolean): FanoutCase[] {
  const detBranches = branchesGraph(
    'det',
    { name: 'x', dims: [1, 3, -1, -1] },
    { name: 'sigmoid_0.tmp_0', dims: [1, 1, -1, -1] },
    0,
  );
  const det = (h: number, w: number): Record<string, Tensor> => ({
    x: { datatype: 'FP32', shape: [1, 3, h, w], data: wave(3 * h * w, 0.01) },
  });
  const headBranches = branchesGraph(
    'head',
    { name: 'feat', dims: [SYNTHETIC.F] },
    { name: 'logits', dims: [SYNTHETIC.C] },
    64,
  );
  const feat: Tensor = { datatype: 'FP32', shape: [64, SYNTHETIC.F], data: wave(64 * SYNTHETIC.F, 1) };
  const x: Tensor = { datatype: 'FP32', shape: [64, SYNTHETIC.D], data: wave(64 * SYNTHETIC.D, 1) };
  // Eight trials a block for the ~100 ms pair (four until the thirty-seventh session): with four, the blocks of one run
  // read 0.96-1.10 engine over bare workers and the median of three moved by +-0.05 on an unchanged build; with
  // eight, 0.96-1.04 (bench HISTORY, "thirty-seventh session").
  return [
    { name: 'fanout', model: 'det', graph: detBranches, feeds: det(640, 640), trials: quick ? 3 : 8, bare: true },
    {
      name: 'fanout_det160',
      model: 'det',
      graph: detBranches,
      feeds: det(160, 640),
      trials: quick ? 3 : 6,
      bare: true,
    },
    { name: 'fanout_head', model: 'head', graph: headBranches, feeds: { feat }, trials: quick ? 5 : 10, bare: true },
    {
      name: 'fanout_extractor',
      model: 'head',
      graph: fanoutGraph(),
      feeds: { x },
      trials: quick ? 5 : 10,
      bare: false,
    },
  ];
}

/** The engine's side: `<case>_parallel`, one engine run of the case's graph. */
export function fanoutEngineTasks({ engine, quick }: EngineSide): Record<string, Task> {
  return Object.fromEntries(
    fanoutCases(quick).map((c) => [`${c.name}_parallel`, async () => void (await runOk(engine, c.graph, c.feeds))]),
  );
}

/** The direct loop's side: `<case>_sequential`, the two branches one after the other (the extractor first for `fanout_extractor`). */
export function fanoutDirectTasks({ direct, quick }: DirectSide): Record<string, Task> {
  return Object.fromEntries(
    fanoutCases(quick).map((c) => [
      `${c.name}_sequential`,
      c.bare ? () => directBranches(direct[c.model]!, c.feeds) : () => directFanout(direct, c.feeds.x!),
    ]),
  );
}

/**
 * A bare workers' process: `<case>_raw_sequential` and `<case>_raw_parallel`, each case on a pair of its own made
 * on first use, at the model's worker nice value (`workerNice`, as the engine's model workers).
 */
export function fanoutBareTasks({ repo, quick }: Side): Hosted {
  const pairs = new Map<string, Promise<RawPair>>();
  const pair = (c: FanoutCase) => {
    if (!pairs.has(c.name)) {
      const nice = workerNice(catalogueModel(repo.catalogue, c.model)!.config);
      pairs.set(c.name, rawWorkerPair(repo.modelFile(c.model)!, c.feeds, nice));
    }
    return pairs.get(c.name)!;
  };
  const tasks: Record<string, Task> = {};
  for (const c of fanoutCases(quick).filter((c) => c.bare)) {
    tasks[`${c.name}_raw_sequential`] = async () => (await pair(c)).sequential();
    tasks[`${c.name}_raw_parallel`] = async () => (await pair(c)).parallel();
  }
  return {
    tasks,
    close: async () => void (await Promise.all([...pairs.values()].map(async (p) => (await p).close()))),
  };
}

const speedup = (seq: number, par: number) => seq / par;

/**
 * `<name>_speedup`: the two branches one after the other in the direct loop's process (`seq`) against the engine
 * running them (`par`); for cases with bare workers, beside the same two branches in two bare workers
 * (`<name>_raw_workers_speedup`) and with `<name>_engine_vs_raw_parallel` (the engine's parallel time over the
 * bare workers'). The bare sequential contender has workers (and a process) of its own: on the parallel pair's,
 * their first worker ran three times as often as either engine instance and got past a new tensor size's
 * fresh-page transient sooner, which made the ceiling look cheaper than it is (engine README, "Fan-out").
 */
async function compareBranches(ctx: BenchContext, c: FanoutCase): Promise<void> {
  const { report } = ctx;
  const [engine, direct] = await Promise.all([ctx.host('engine'), ctx.host('direct')]);
  const contenders = [direct.contender(`${c.name}_sequential`, 2), engine.contender(`${c.name}_parallel`, 2)];
  if (c.bare) {
    const [seqBare, parBare] = await Promise.all([ctx.host('bare_a'), ctx.host('bare_b')]);
    contenders.push(seqBare.contender(`${c.name}_raw_sequential`, 2), parBare.contender(`${c.name}_raw_parallel`, 2));
  }
  const t = report.addMeasured(
    contenders,
    await measureBlocks(contenders, { blocks: ctx.blocks, trials: c.trials, probe: ctx.probe }),
  );
  const own = perBlock(t[`${c.name}_sequential`]!, t[`${c.name}_parallel`]!, speedup);
  if (!c.bare) {
    report.add(`${c.name}_speedup`, own);
    return;
  }
  report.add(
    `${c.name}_raw_workers_speedup`,
    perBlock(t[`${c.name}_raw_sequential`]!, t[`${c.name}_raw_parallel`]!, speedup),
  );
  report.add(`${c.name}_speedup`, own, [`${c.name}_raw_workers_speedup`]);
  const vsRaw = perBlock(t[`${c.name}_parallel`]!, t[`${c.name}_raw_parallel`]!, (e, r) => e / r);
  report.add(`${c.name}_engine_vs_raw_parallel`, vsRaw, [`${c.name}_raw_parallel_ms`]);
}

/**
 * `fanout_speedup` (two det branches at 640×640) beside `fanout_raw_workers_speedup`, and
 * `fanout_engine_vs_raw_parallel`; the same for det at 160×640 and two ~7 ms heads; and the heads behind a
 * shared extractor (whose time cannot overlap anything, so that speedup is lower by construction; no bare pair).
 */
export async function fanoutBench(ctx: BenchContext): Promise<void> {
  for (const c of fanoutCases(ctx.quick)) await compareBranches(ctx, c);
}
