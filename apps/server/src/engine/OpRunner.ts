import type { OpId, Tensor } from '@ensemble-studio/core';
import { EngineError } from './errors.ts';
import { InstancePool } from './InstancePool.ts';
import { createOpContext } from './ops/opContext.ts';
import { OPS, type OpContext } from './ops/registry.ts';
import { copyData, markOwned, ownsWholeBuffer, rememberSummary } from './tensors.ts';
import type { PortableTensor } from './workerProtocol.ts';

/**
 * Inputs at or above this many bytes send an op to the op workers; smaller ones run on the main
 * thread. Measured: a worker round trip costs ~0.1–0.2 ms, while ops on large tensors (DB
 * post-processing of a 960² map, CTC over [N,T,6625], image resize) run for several ms and would
 * stall the event loop that streams results.
 */
export const OP_WORKER_MIN_BYTES = 64 * 1024;

export interface OpResult { outputs: Record<string, Tensor>; computeMs: number; queueMs: number; instance: string }

/** Runs built-in ops: small inputs on the main thread, large ones in a pool of op worker threads. */
export class OpRunner {
  private readonly pool: InstancePool;
  private started: Promise<unknown> | undefined;
  private readonly ctx: OpContext;

  constructor(repoDir: string, workers: number) {
    this.pool = new InstancePool({ name: 'ops', count: workers, spec: { kind: 'ops', repoDir } });
    this.ctx = createOpContext(repoDir);
  }

  /** Starts the op workers (idempotent). */
  start(): Promise<unknown> {
    this.started ??= this.pool.start().catch((err: unknown) => err);
    return this.started;
  }

  /** Runs op `op` on `inputs`; `canTransfer` says which input buffers may move to a worker. */
  async run(op: OpId, inputs: Record<string, Tensor>, values: Record<string, number | string | boolean>, opts: { signal?: AbortSignal; canTransfer?: (t: Tensor) => boolean }): Promise<OpResult> {
    const impl = Object.hasOwn(OPS, op) ? OPS[op] : undefined;
    if (!impl) throw new EngineError('invalid-graph', `unknown op '${op}'`);
    const bytes = Object.values(inputs).reduce((n, t) => n + (Array.isArray(t.data) ? t.data.length * 16 : (t.data as Float32Array).byteLength), 0);
    if (bytes < OP_WORKER_MIN_BYTES) {
      const t0 = performance.now();
      const outputs = impl.run(inputs, values, this.ctx);
      return { outputs, computeMs: performance.now() - t0, queueMs: 0, instance: 'main' };
    }
    await this.start();
    const transfer: ArrayBuffer[] = [];
    const portable: Record<string, PortableTensor> = {};
    for (const [name, t] of Object.entries(inputs)) {
      if (Array.isArray(t.data)) { portable[name] = { datatype: t.datatype, shape: [...t.shape], data: t.data }; continue; }
      const move = opts.canTransfer?.(t) === true && ownsWholeBuffer(t.data) && !transfer.includes((t.data as Float32Array).buffer as ArrayBuffer);
      const data = move ? t.data : copyData(t.data);
      transfer.push((data as Float32Array).buffer as ArrayBuffer);
      portable[name] = { datatype: t.datatype, shape: [...t.shape], data };
    }
    const r = await this.pool.run({ type: 'op', op, inputs: portable, values }, transfer, { signal: opts.signal });
    const outputs: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(r.result.outputs)) outputs[name] = rememberSummary(markOwned({ datatype: t.datatype, shape: t.shape, data: t.data }), r.result.summaries[name]);
    return { outputs, computeMs: r.result.computeNs / 1e6, queueMs: r.queueNs / 1e6, instance: r.instance };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
