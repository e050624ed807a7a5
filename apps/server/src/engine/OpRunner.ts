import type { OpId, Tensor } from '@ensemble-studio/core';
import type { CancelSignal } from './cancel.ts';
import { EngineError } from './errors.ts';
import { workerInstances, type RequestBody, type WorkerResult } from './backends/onnx/WorkerInstance.ts';
import { InstancePool } from './InstancePool.ts';
import { createOpContext } from './ops/opContext.ts';
import { opImpl, type OpContext } from './ops/registry.ts';
import { portableFeeds, receivedOutputs } from './tensors.ts';

/**
 * Inputs below this many bytes always run on the main thread. Larger ones go to the op workers
 * unless the op is known to be quick (see INLINE_BUDGET_MS): DB post-processing of a 960² map, CTC
 * over [N,T,6625] or an image resize run for several ms and would stall the event loop that streams
 * results.
 */
export const OP_WORKER_MIN_BYTES = 64 * 1024;

/**
 * An op predicted to finish within this many ms runs on the main thread whatever its input size.
 * A hop to a worker and back wakes two sleeping threads: 0.6–1 ms measured on these 2-core VMs, so
 * an op that runs in under ~1 ms finishes sooner inline. A 2 ms budget saved one more hop per OCR
 * run but put the event-loop lag p99 over 5 ms (these VMs stretch a 2 ms op to 5–8 ms at times).
 * Larger inputs of the same op are predicted to take longer and go to a worker.
 */
export const INLINE_BUDGET_MS = 1;

/**
 * Per op, the median ms per input byte of its last few runs wherever they ran (a median, so one
 * cold-JIT or descheduled run does not move an op between threads).
 * @example costs.record('db_postprocess', 409600, 0.5); costs.predict('db_postprocess', 409600) // 0.5
 */
export class OpCostModel {
  private static readonly WINDOW = 5;
  private readonly rates = new Map<string, number[]>();

  /** Predicted ms for `op` on `bytes` of input, or undefined before its first run. */
  predict(op: string, bytes: number): number | undefined {
    const recent = this.rates.get(op);
    if (!recent) return undefined;
    const sorted = [...recent].sort((a, b) => a - b);
    return sorted[sorted.length >> 1]! * bytes;
  }

  record(op: string, bytes: number, ms: number): void {
    if (bytes <= 0) return;
    const recent = this.rates.get(op) ?? [];
    recent.push(ms / bytes);
    if (recent.length > OpCostModel.WINDOW) recent.shift();
    this.rates.set(op, recent);
  }
}

export interface OpResult {
  outputs: Record<string, Tensor>;
  computeMs: number;
  queueMs: number;
  instance: string;
}

/** Runs built-in ops: small or quick ones on the main thread, the rest in a pool of op worker threads. */
export class OpRunner {
  private readonly pool: InstancePool<RequestBody, WorkerResult>;
  private started: Promise<unknown> | undefined;
  private readonly ctx: OpContext;
  readonly costs = new OpCostModel();

  constructor(repoDir: string, workers: number) {
    this.pool = new InstancePool({ name: 'ops', count: workers, create: workerInstances({ kind: 'ops', repoDir }) });
    this.ctx = createOpContext(repoDir);
  }

  /** Starts the op workers (idempotent). */
  start(): Promise<unknown> {
    this.started ??= this.pool.start().catch((err: unknown) => err);
    return this.started;
  }

  /** Runs op `op` on `inputs`; `canTransfer` says which input buffers may move to a worker. */
  async run(
    op: OpId,
    inputs: Record<string, Tensor>,
    values: Record<string, number | string | boolean>,
    opts: { signal?: CancelSignal; canTransfer?: (t: Tensor) => boolean; summarize?: boolean },
  ): Promise<OpResult> {
    const impl = opImpl(op);
    if (!impl) throw new EngineError('invalid-graph', `unknown op '${op}'`);
    const bytes = Object.values(inputs).reduce(
      (n, t) => n + (Array.isArray(t.data) ? t.data.length * 16 : (t.data as Float32Array).byteLength),
      0,
    );
    const predicted = this.costs.predict(op, bytes);
    if (bytes < OP_WORKER_MIN_BYTES || (predicted !== undefined && predicted < INLINE_BUDGET_MS)) {
      const t0 = performance.now();
      const outputs = impl.run(inputs, values, this.ctx);
      const computeMs = performance.now() - t0;
      if (bytes >= OP_WORKER_MIN_BYTES) this.costs.record(op, bytes, computeMs);
      return { outputs, computeMs, queueMs: 0, instance: 'main' };
    }
    await this.start();
    const { portable, transfer } = portableFeeds(inputs, opts.canTransfer);
    const r = await this.pool.run(
      { type: 'op', op, inputs: portable, values, summarize: opts.summarize === true },
      transfer,
      { signal: opts.signal },
    );
    const outputs = receivedOutputs(r.result);
    const computeMs = r.result.computeNs / 1e6;
    this.costs.record(op, bytes, computeMs);
    return { outputs, computeMs, queueMs: r.queueNs / 1e6, instance: r.instance };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
