// OCR and its early exit through the engine against the direct loop (the same sessions and ops called in turn
// on the main thread), and the event loop's lag while the engine runs models.
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Tensor } from '@ensemble-studio/core';
import type { RunResult } from '../src/engine/types.ts';
import { fanoutGraph, ocrGraph } from '../src/testing/engineGraphs.ts';
import { SYNTHETIC } from '../src/onnx/synthetic.ts';
import { type BenchContext, runOk } from './context.ts';
import { directOcr, type StageTimes } from './direct.ts';
import { measureBlocks, type Contender } from './measure.ts';
import { hopTally } from './requestHops.ts';
import { median, perBlock } from './stats.ts';

/** Counts, per op node, where the engine ran it (`NodeTiming.placement`) over the runs of a scenario. */
function placementTally(): {
  note(r: RunResult, block: number): RunResult;
  summary(): Record<string, Record<string, number>>;
} {
  const seen: Record<string, Record<string, number>> = {};
  return {
    note: (r, block) => {
      if (block < 0) return r; // the warm-up run
      for (const t of r.timings)
        if (t.placement) (seen[t.nodeId] ??= {})[t.placement] = (seen[t.nodeId]?.[t.placement] ?? 0) + 1;
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

/** One stage's median time in the engine (its node's computeMs, wherever it ran) and in the direct loop. */
interface StageRow {
  stage: string;
  engine_ms: number;
  direct_ms: number;
}

/** The stages both sides timed, in the direct loop's order. */
function stageTable(engine: StageTimes, direct: StageTimes): StageRow[] {
  return Object.keys(direct)
    .filter((stage) => engine[stage]?.length)
    .map((stage) => ({ stage, engine_ms: median(engine[stage]!), direct_ms: median(direct[stage]!) }));
}

const describeStages = (rows: StageRow[]) =>
  rows.map((r) => `${r.stage} ${r.engine_ms.toFixed(2)} / ${r.direct_ms.toFixed(2)}`).join(', ');

/**
 * `ocr_overhead_ratio` and `early_exit_ratio`, each beside its direct loop's time; where the engine ran each op
 * (counted over the measured runs) is printed and kept in the JSON's `ocr_placements` / `early_exit_placements`,
 * and each stage's median time in both (`ocr_stages`): a stage slower in the engine than in the loop points at the
 * thread it ran on, one no slower puts the difference in the hops and the scheduling between stages, which
 * `ocr_hops` splits per model request (`requestHops.ts`).
 */
export async function ocrBench(ctx: BenchContext): Promise<void> {
  const { engine, repo, direct, report, image } = ctx;
  const ocr = ocrGraph('gate');
  const check = await runOk(engine, ocr, { image });
  ctx.log(`ocr text image → ${check.status}, texts: ${JSON.stringify(check.outputs.texts?.data ?? [])}`);
  const trials = ctx.quick ? 3 : 7;

  const directStages: StageTimes = {};
  const engineStages: StageTimes = {};
  const hops = hopTally();
  const text: Contender[] = [
    { name: 'ocr_direct', run: (b) => directOcr(repo, ocr, direct, image, b >= 0 ? directStages : undefined) },
    {
      name: 'ocr_engine',
      run: async (b) => textPlaces.note(noteStages(await runOk(engine, ocr, { image }), b, engineStages, hops), b),
    },
  ];
  const textPlaces = placementTally();
  const t = report.addMeasured(text, await measureBlocks(text, { blocks: ctx.blocks, trials }));
  report.extra.ocr_placements = textPlaces.summary();
  ctx.log(`ocr: where the engine ran each op: ${describePlacements(textPlaces.summary()) || 'not reported'}`);
  report.extra.ocr_stages = stageTable(engineStages, directStages);
  ctx.log(
    `ocr: each stage, engine / direct loop (medians, ms): ${describeStages(report.extra.ocr_stages as StageRow[])}`,
  );
  report.extra.ocr_hops = hops.summary();
  ctx.log(
    `ocr: each model request beyond its compute / the main thread's turn before it (medians, ms): ${hops
      .summary()
      .map((h) => `${h.node} ${h.overhead_ms.toFixed(2)} / ${h.dispatch_ms.toFixed(2)}`)
      .join(', ')}`,
  );
  report.add(
    'ocr_overhead_ratio',
    perBlock(t.ocr_engine!, t.ocr_direct!, (e, d) => e / d),
    ['ocr_direct_ms'],
  );

  // A blank image: the engine exits after det; the direct loop runs preprocess → det → DB → condition.
  const blank: Tensor = { datatype: 'UINT8', shape: image.shape, data: new Uint8Array(image.data.length).fill(255) };
  const exit: Contender[] = [
    { name: 'det_only', run: () => directOcr(repo, ocr, direct, blank) },
    { name: 'early_exit', run: async (b) => exitPlaces.note(await runOk(engine, ocr, { image: blank }), b) },
  ];
  const exitPlaces = placementTally();
  const e = report.addMeasured(exit, await measureBlocks(exit, { blocks: ctx.blocks, trials }));
  report.extra.early_exit_placements = exitPlaces.summary();
  ctx.log(`early exit: where the engine ran each op: ${describePlacements(exitPlaces.summary()) || 'not reported'}`);
  report.add(
    'early_exit_ratio',
    perBlock(e.early_exit!, e.det_only!, (x, d) => x / d),
    ['det_only_ms'],
  );
}

/** The timer interval of the lag monitor, in ms. */
const LAG_RESOLUTION_MS = 1;

/** ns this thread has spent runnable but waiting for a CPU (Linux `/proc/thread-self/schedstat`), or undefined. */
function runQueueWaitNs(): number | undefined {
  try {
    const wait = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]);
    return Number.isFinite(wait) ? wait : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `event_loop_lag_p99_ms`, per block, while OCR and the shared-features fan-out run together: how late the loop
 * ran a timer. Node's histogram records the whole interval between its timer's callbacks, the resolution
 * included (an idle loop reads 1.1 ms at resolution 1), so the lag is what exceeds the resolution; the raw p99
 * is kept as `event_loop_timer_interval_p99_ms`. `main_thread_runqueue_wait_share`: the part of the blocks'
 * wall time the main thread spent runnable but waiting for a CPU (where lag comes from when it is not the
 * thread's own work). In a phase of its own: measured right after a direct (loop-blocking) call, the monitor
 * would report that call's block as lag.
 */
export async function eventLoopLagBench(ctx: BenchContext): Promise<void> {
  const ocr = ocrGraph('gate');
  const x: Tensor = {
    datatype: 'FP32',
    shape: [64, SYNTHETIC.D],
    data: Float32Array.from({ length: 64 * SYNTHETIC.D }, (_, i) => Math.sin(i)),
  };
  const both = () =>
    Promise.all([runOk(ctx.engine, ocr, { image: ctx.image }), runOk(ctx.engine, fanoutGraph(), { x })]);
  await both();
  const p99s: number[] = [];
  const intervals: number[] = [];
  const waitShares: number[] = [];
  for (let b = 0; b < ctx.blocks; b++) {
    const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    const wait0 = runQueueWaitNs();
    const t0 = performance.now();
    lag.enable();
    for (let i = 0; i < (ctx.quick ? 3 : 6); i++) await both();
    lag.disable();
    const wall = performance.now() - t0;
    const wait1 = runQueueWaitNs();
    const interval = lag.percentile(99) / 1e6;
    intervals.push(interval);
    p99s.push(Math.max(0, interval - LAG_RESOLUTION_MS));
    if (wait0 !== undefined && wait1 !== undefined) waitShares.push((wait1 - wait0) / 1e6 / wall);
  }
  ctx.report.add('event_loop_lag_p99_ms', p99s, [
    'event_loop_timer_interval_p99_ms',
    'main_thread_runqueue_wait_share',
  ]);
  ctx.report.add('event_loop_timer_interval_p99_ms', intervals);
  if (waitShares.length === ctx.blocks) ctx.report.add('main_thread_runqueue_wait_share', waitShares);
}
