// OCR and its early exit through the engine against the direct loop (the same sessions and ops called in turn
// on a main thread), each in a process of its own.
import type { Tensor } from '@ensemble-studio/core';
import type { RunResult } from '../src/engine/types.ts';
import { ocrGraph } from '../src/testing/engineGraphs.ts';
import { type BenchContext, type DirectSide, type EngineSide, runOk } from './context.ts';
import type { Task } from './contenderProcess.ts';
import { directOcr, type StageTimes } from './direct.ts';
import { atEqualStage, type StageTime } from './equalStage.ts';
import { measureBlocks } from './measure.ts';
import { hopTally } from './requestHops.ts';
import { median, perBlock } from './stats.ts';

/**
 * Counts, per op node, where the engine ran it (`NodeTiming.placement`), and per model node whether its worker woke
 * the main thread ahead of its reply (`NodeTiming.wokeAhead`: 'woken' / 'unwoken') and whether it was polling for
 * the run's first request (`NodeTiming.spunAhead`: 'spun' / 'unspun') and whether the worker of the request before
 * it ran it (`NodeTiming.hosted`: 'hosted' / 'unhosted'), over the runs of a scenario.
 */
function placementTally(): {
  note(r: RunResult, block: number): RunResult;
  summary(): Record<string, Record<string, number>>;
} {
  const seen: Record<string, Record<string, number>> = {};
  return {
    note: (r, block) => {
      if (block < 0) return r; // the warm-up run
      const count = (node: string, way: string) => ((seen[node] ??= {})[way] = (seen[node]?.[way] ?? 0) + 1);
      for (const t of r.timings) {
        const where = t.placement ?? (t.wokeAhead === undefined ? undefined : t.wokeAhead ? 'woken' : 'unwoken');
        if (where) count(t.nodeId, where);
        if (t.spunAhead !== undefined) count(t.nodeId, t.spunAhead ? 'spun' : 'unspun');
        if (t.hosted !== undefined) count(t.nodeId, t.hosted ? 'hosted' : 'unhosted');
      }
      return r;
    },
    summary: () => seen,
  };
}

const describePlacements = (p: Record<string, Record<string, number>>) =>
  Object.entries(p)
    .map(
      ([node, where]) =>
        `${node} ${Object.entries(where)
          .map(([w, n]) => `${w}×${n}`)
          .join('/')}`,
    )
    .join(', ');

/** Adds each node's compute time of a measured run (`block` ≥ 0) to `stages` and its requests to `hops`. */
function noteStages(r: RunResult, block: number, stages: StageTimes, hops: ReturnType<typeof hopTally>): RunResult {
  if (block < 0) return r;
  for (const t of r.timings) if (t.computeMs !== undefined) (stages[t.nodeId] ??= []).push(t.computeMs);
  hops.note(r.timings);
  return r;
}

/** The stages both sides timed, in the direct loop's order. */
function stageTable(engine: StageTimes, direct: StageTimes): StageTime[] {
  return Object.keys(direct)
    .filter((stage) => engine[stage]?.length)
    .map((stage) => ({ stage, engine_ms: median(engine[stage]!), direct_ms: median(direct[stage]!) }));
}

const describeStages = (rows: StageTime[]) =>
  rows.map((r) => `${r.stage} ${r.engine_ms.toFixed(2)} / ${r.direct_ms.toFixed(2)}`).join(', ');

/** A blank image of `image`'s size: the engine exits after det. */
const blankOf = (image: Tensor): Tensor => ({
  datatype: 'UINT8',
  shape: image.shape,
  data: new Uint8Array(image.data.length).fill(255),
});

type Placements = Record<string, Record<string, number>>;
type HopRow = ReturnType<ReturnType<typeof hopTally>['summary']>[number];

/** What the engine made of the bench's text image, before anything is timed. */
interface OcrCheck {
  status: string;
  texts: string[];
}

/** What the engine's process noted over the measured OCR runs. */
interface EngineNotes {
  placements: Placements;
  stages: StageTimes;
  hops: HopRow[];
}

/** The engine's side: `ocr_engine` and `early_exit` trials, and what they noted (where each op ran, stage times, hops). */
export function ocrEngineTasks({ engine, image }: EngineSide): Record<string, Task> {
  const ocr = ocrGraph('gate');
  const blank = blankOf(image);
  const stages: StageTimes = {};
  const hops = hopTally();
  const textPlaces = placementTally();
  const exitStages: StageTimes = {};
  const exitHops = hopTally();
  const exitPlaces = placementTally();
  return {
    ocr_check: async (): Promise<OcrCheck> => {
      const r = await runOk(engine, ocr, { image });
      return { status: r.status, texts: [...((r.outputs.texts?.data as string[] | undefined) ?? [])] };
    },
    ocr_engine: async (b) => void textPlaces.note(noteStages(await runOk(engine, ocr, { image }), b, stages, hops), b),
    early_exit: async (b) =>
      void exitPlaces.note(noteStages(await runOk(engine, ocr, { image: blank }), b, exitStages, exitHops), b),
    ocr_engine_notes: async (): Promise<EngineNotes> => ({
      placements: textPlaces.summary(),
      stages,
      hops: hops.summary(),
    }),
    early_exit_notes: async (): Promise<EngineNotes> => ({
      placements: exitPlaces.summary(),
      stages: exitStages,
      hops: exitHops.summary(),
    }),
  };
}

/** The direct loop's side: `ocr_direct` (timing each stage of the measured runs) and `det_only`. */
export function ocrDirectTasks({ repo, direct, image }: DirectSide): Record<string, Task> {
  const ocr = ocrGraph('gate');
  const blank = blankOf(image);
  const stages: StageTimes = {};
  const exitStages: StageTimes = {};
  return {
    ocr_direct: async (b) => void (await directOcr(repo, ocr, direct, image, b >= 0 ? stages : undefined)),
    // The direct loop runs preprocess → det → DB → condition on the blank image, and stops there.
    det_only: async (b) => void (await directOcr(repo, ocr, direct, blank, b >= 0 ? exitStages : undefined)),
    ocr_direct_stages: async () => stages,
    det_only_stages: async () => exitStages,
  };
}

/**
 * `ocr_overhead_ratio` and `early_exit_ratio`, each beside its direct loop's time; for each, where the engine ran
 * each op (counted over the measured runs) is printed and kept in the JSON (`ocr_placements`,
 * `early_exit_placements`), and each stage's median time in both (`ocr_stages`, `early_exit_stages`): a stage slower
 * in the engine than in the loop points at the thread it ran on, one no slower puts the difference in the hops and
 * the scheduling between stages, which `ocr_hops` / `early_exit_hops` split per model request (`requestHops.ts`).
 */
export async function ocrBench(ctx: BenchContext): Promise<void> {
  const { report } = ctx;
  const [engine, direct] = await Promise.all([ctx.host('engine'), ctx.host('direct')]);
  const check = await engine.call<OcrCheck>('ocr_check');
  ctx.log(`ocr text image → ${check.status}, texts: ${JSON.stringify(check.texts)}`);
  // Text found is what makes the OCR scenario OCR: without it, det's early exit would be timed under its name.
  if (check.status !== 'completed' || check.texts.length === 0)
    throw new Error(`the OCR scenario's text image gave no text (${check.status}): it would time an early exit as OCR`);
  const trials = ctx.quick ? 3 : 7;

  const text = [direct.contender('ocr_direct'), engine.contender('ocr_engine')];
  const t = report.addMeasured(text, await measureBlocks(text, { blocks: ctx.blocks, trials, probe: ctx.probe }));
  const ocrStages = reportNotes(
    ctx,
    'ocr',
    await engine.call<EngineNotes>('ocr_engine_notes'),
    await direct.call<StageTimes>('ocr_direct_stages'),
  );
  const ocrRatio = report.add(
    'ocr_overhead_ratio',
    perBlock(t.ocr_engine!, t.ocr_direct!, (e, d) => e / d),
    ['ocr_direct_ms'],
  );
  reportEqualDet(ctx, 'ocr_overhead_ratio', ocrRatio.median, ocrStages);

  const exit = [direct.contender('det_only'), engine.contender('early_exit')];
  const e = report.addMeasured(exit, await measureBlocks(exit, { blocks: ctx.blocks, trials, probe: ctx.probe }));
  const exitStages = reportNotes(
    ctx,
    'early_exit',
    await engine.call<EngineNotes>('early_exit_notes'),
    await direct.call<StageTimes>('det_only_stages'),
  );
  const exitRatio = report.add(
    'early_exit_ratio',
    perBlock(e.early_exit!, e.det_only!, (x, d) => x / d),
    ['det_only_ms'],
  );
  reportEqualDet(ctx, 'early_exit_ratio', exitRatio.median, exitStages);
}

/**
 * Keeps and prints `<metric>_at_equal_det`: the ratio's median as if the engine's process had run det at the loop's
 * speed (equalStage.ts), so a run where one process was the slower reads apart from the engine's own overhead.
 */
function reportEqualDet(ctx: BenchContext, metric: string, median: number, stages: StageTime[]): void {
  const equal = atEqualStage(median, stages, 'det');
  if (equal === undefined) return;
  const det = stages.find((s) => s.stage === 'det')!;
  ctx.report.extra[`${metric}_at_equal_det`] = equal;
  ctx.log(
    `${metric} at equal det speed: ${equal.toFixed(3)} (det ${det.engine_ms.toFixed(2)} ms in the engine's process, ` +
      `${det.direct_ms.toFixed(2)} in the loop's; the goal is read on ${metric} itself)`,
  );
}

/**
 * Prints and keeps (`<scenario>_placements`, `_stages`, `_hops`) what the engine noted over a scenario's measured
 * runs beside the direct loop's stage times: where each op ran, each stage's median in both, and each model
 * request's time beyond its compute. Returns the stage table.
 */
function reportNotes(
  ctx: BenchContext,
  scenario: 'ocr' | 'early_exit',
  notes: EngineNotes,
  direct: StageTimes,
): StageTime[] {
  const { report } = ctx;
  const label = scenario === 'ocr' ? 'ocr' : 'early exit';
  report.extra[`${scenario}_placements`] = notes.placements;
  ctx.log(`${label}: where the engine ran each op: ${describePlacements(notes.placements) || 'not reported'}`);
  const stages = stageTable(notes.stages, direct);
  report.extra[`${scenario}_stages`] = stages;
  ctx.log(`${label}: each stage, engine / direct loop (medians, ms): ${describeStages(stages)}`);
  report.extra[`${scenario}_hops`] = notes.hops;
  ctx.log(
    `${label}: each model request beyond its compute / the main thread's turn before it (medians, ms): ${notes.hops
      .map((h) => `${h.node} ${h.overhead_ms.toFixed(2)} / ${h.dispatch_ms.toFixed(2)}`)
      .join(', ')}`,
  );
  return stages;
}
