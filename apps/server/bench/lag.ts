// The event loop's lag while the engine runs models: measured inside the engine's process, since the lag of that
// process's own loop is the metric (it has no contender to keep apart from).
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Tensor } from '@ensemble-studio/core';
import { fanoutGraph, ocrGraph } from '../src/testing/engineGraphs.ts';
import { SYNTHETIC } from '../src/onnx/synthetic.ts';
import { type BenchContext, type EngineSide, runOk } from './context.ts';
import type { Task } from './contenderProcess.ts';

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

/** One block's lag p99 (less the resolution), the monitor's raw interval p99, and the run-queue wait share. */
interface LagBlock {
  p99: number;
  interval: number;
  waitShare?: number;
}

/** The engine's side: `event_loop_lag`, one block of OCR and the fan-out run together under the monitor (-1: a warm-up run). */
export function lagTasks({ engine, image, quick }: EngineSide): Record<string, Task> {
  const ocr = ocrGraph('gate');
  const x: Tensor = {
    datatype: 'FP32',
    shape: [64, SYNTHETIC.D],
    data: Float32Array.from({ length: 64 * SYNTHETIC.D }, (_, i) => Math.sin(i)),
  };
  const both = () => Promise.all([runOk(engine, ocr, { image }), runOk(engine, fanoutGraph(), { x })]);
  return {
    event_loop_lag: async (block): Promise<LagBlock | undefined> => {
      if (block < 0) return void (await both());
      const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
      const wait0 = runQueueWaitNs();
      const t0 = performance.now();
      lag.enable();
      for (let i = 0; i < (quick ? 3 : 6); i++) await both();
      lag.disable();
      const wall = performance.now() - t0;
      const wait1 = runQueueWaitNs();
      const interval = lag.percentile(99) / 1e6;
      const waitShare = wait0 !== undefined && wait1 !== undefined ? (wait1 - wait0) / 1e6 / wall : undefined;
      return { p99: Math.max(0, interval - LAG_RESOLUTION_MS), interval, waitShare };
    },
  };
}

/**
 * `event_loop_lag_p99_ms`, per block, while OCR and the shared-features fan-out run together: how late the
 * engine's loop ran a timer. Node's histogram records the whole interval between its timer's callbacks, the
 * resolution included (an idle loop reads 1.1 ms at resolution 1), so the lag is what exceeds the resolution; the
 * raw p99 is kept as `event_loop_timer_interval_p99_ms`. `main_thread_runqueue_wait_share`: the part of the
 * blocks' wall time the main thread spent runnable but waiting for a CPU (where lag comes from when it is not the
 * thread's own work). In the engine's process, in a phase of its own: no direct (loop-blocking) call runs
 * there, and no other scenario's runs overlap the monitor.
 */
export async function eventLoopLagBench(ctx: BenchContext): Promise<void> {
  const engine = await ctx.host('engine');
  await engine.call('event_loop_lag');
  const blocks: LagBlock[] = [];
  for (let b = 0; b < ctx.blocks; b++) blocks.push(await engine.call<LagBlock>('event_loop_lag', b));
  ctx.report.add(
    'event_loop_lag_p99_ms',
    blocks.map((b) => b.p99),
    ['event_loop_timer_interval_p99_ms', 'main_thread_runqueue_wait_share'],
  );
  ctx.report.add(
    'event_loop_timer_interval_p99_ms',
    blocks.map((b) => b.interval),
  );
  const shares = blocks.flatMap((b) => (b.waitShare === undefined ? [] : [b.waitShare]));
  if (shares.length === ctx.blocks) ctx.report.add('main_thread_runqueue_wait_share', shares);
}
