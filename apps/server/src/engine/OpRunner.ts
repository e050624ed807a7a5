import type { OpId, Tensor } from '@ensemble-studio/core';
import type { CancelSignal } from './cancel.ts';
import { EngineError } from './errors.ts';
import { workerInstances, type RequestBody, type WorkerResult } from './backends/onnx/WorkerInstance.ts';
import { InstancePool } from './InstancePool.ts';
import { createOpContext } from './ops/opContext.ts';
import { Placer } from './placement.ts';
import { opImpl, type OpContext } from './ops/registry.ts';
import { portableFeeds, receivedOutputs } from './tensorTransfer.ts';

export interface OpResult {
  outputs: Record<string, Tensor>;
  computeMs: number;
  queueMs: number;
  instance: string;
  placement: 'inline' | 'op-worker';
}

/**
 * Runs built-in ops on the main thread or in a pool of op worker threads, where `placer` (placement.ts)
 * says from the costs measured so far; each run adds its own measurement (and a worker run, the hop's).
 */
export class OpRunner {
  private readonly pool: InstancePool<RequestBody, WorkerResult>;
  private started: Promise<unknown> | undefined;
  private readonly ctx: OpContext;
  readonly placer = new Placer();

  constructor(repoDir: string, workers: number) {
    this.pool = new InstancePool({ name: 'ops', count: workers, create: workerInstances({ kind: 'ops', repoDir }) });
    this.ctx = createOpContext(repoDir);
  }

  /** Starts the op workers (idempotent). */
  start(): Promise<unknown> {
    this.started ??= this.pool.start().catch((err: unknown) => err);
    return this.started;
  }

  /**
   * Runs op `op` on `inputs`; `key` names the graph node for the cost estimates (`placementKey`),
   * `canTransfer` says which input buffers may move to a worker.
   */
  async run(
    op: OpId,
    inputs: Record<string, Tensor>,
    values: Record<string, number | string | boolean>,
    opts: { key?: string; signal?: CancelSignal; canTransfer?: (t: Tensor) => boolean; summarize?: boolean },
  ): Promise<OpResult> {
    const impl = opImpl(op);
    if (!impl) throw new EngineError('invalid-graph', `unknown op '${op}'`);
    const key = opts.key ?? op;
    const { costs } = this.placer;
    if (this.placer.opPlace(key) === 'inline') {
      const t0 = performance.now();
      const outputs = impl.run(inputs, values, this.ctx);
      const computeMs = performance.now() - t0;
      costs.record(key, 'inline', computeMs, mainWarmKey(op));
      return { outputs, computeMs, queueMs: 0, instance: 'main', placement: 'inline' };
    }
    await this.start();
    const { portable, transfer } = portableFeeds(inputs, opts.canTransfer);
    const t0 = performance.now();
    const r = await this.pool.run(
      { type: 'op', op, inputs: portable, values, summarize: opts.summarize === true },
      transfer,
      { signal: opts.signal },
    );
    const roundTripMs = performance.now() - t0;
    const outputs = receivedOutputs(r.result);
    const computeMs = r.result.computeNs / 1e6;
    const queueMs = r.queueNs / 1e6;
    costs.record(key, 'op-worker', computeMs, `${op}@${r.instance}`);
    costs.recordHop(roundTripMs - computeMs - queueMs);
    return { outputs, computeMs, queueMs, instance: r.instance, placement: 'op-worker' };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** `op@main`, made once per op rather than per run (an inline op of a stream runs per chunk). */
const mainWarmKeys = new Map<string, string>();
function mainWarmKey(op: OpId): string {
  let k = mainWarmKeys.get(op);
  if (k === undefined) mainWarmKeys.set(op, (k = `${op}@main`));
  return k;
}
