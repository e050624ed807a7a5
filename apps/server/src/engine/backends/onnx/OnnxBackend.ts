import type { Tensor } from '@ensemble-studio/core';
import { InstancePool } from '../../InstancePool.ts';
import { portableFeeds, receivedOutputs } from '../../tensorTransfer.ts';
import type { BackendCall, BackendReply, ModelBackend } from '../modelBackend.ts';
import { workerInstances, type RequestBody, type WorkerResult } from './WorkerInstance.ts';
import type { ChainRequest } from '../../modelRuntimeTypes.ts';
import type { ChainStep, LoadSpec } from './workerProtocol.ts';

/**
 * The ONNX backend: one onnxruntime session per worker thread. Tensors go to the worker by transfer when
 * the caller allows it, else as a fresh copy; fused ops (fusion.ts) run in the same worker request.
 */
export class OnnxBackend implements ModelBackend {
  readonly pool: InstancePool<RequestBody, WorkerResult>;
  readonly concatenates = true;
  readonly fusable = true;
  readonly notices: string[] = [];

  constructor(name: string, count: number, spec: Extract<LoadSpec, { kind: 'model' }>) {
    this.pool = new InstancePool({ name, count, create: workerInstances(spec) });
  }

  async call(c: BackendCall): Promise<BackendReply> {
    const { portable, transfer } = portableFeeds(c.inputs, c.canTransfer);
    const r = await this.pool.run({ type: 'run', feeds: portable, summarize: c.summarize === true }, transfer, {
      signal: c.signal,
      pin: c.pin,
      requests: c.requests ?? 1,
    });
    return {
      outputs: receivedOutputs(r.result),
      instance: r.instance,
      queueNs: r.queueNs,
      computeNs: r.result.computeNs,
      startNs: r.startNs,
      arrivedNs: r.result.arrivedNs,
      spun: r.result.spun === true,
      ...(r.result.inferStartNs === undefined
        ? {}
        : { inferStartNs: r.result.inferStartNs, inferEndNs: r.result.inferStartNs + r.result.computeNs }),
    };
  }

  callMany(): Promise<(BackendReply | Error)[]> {
    return Promise.reject(new Error('the ONNX backend concatenates a batch into one call'));
  }

  /** Runs a fused group on one instance: its ops and the session in one worker request. */
  async runChain(
    feeds: Record<string, Tensor>,
    steps: ChainStep[],
    opts: Omit<ChainRequest, 'feeds' | 'steps' | 'modelStep'>,
  ) {
    const { portable, transfer } = portableFeeds(feeds, opts.canTransfer);
    const body: Extract<RequestBody, { type: 'chain' }> = {
      type: 'chain',
      feeds: portable,
      steps,
      summarize: opts.summarize === true,
    };
    if (opts.wakeAhead) body.wakeAhead = true;
    if (opts.next) body.next = opts.next;
    if (opts.viaHost) body.viaHost = opts.viaHost;
    const r = await this.pool.run(body, transfer, { signal: opts.signal, pin: opts.pin });
    return {
      outputs: receivedOutputs(r.result),
      stages: r.result.stages ?? [],
      replyNs: (r.result.receivedNs ?? 0) - (r.result.sentNs ?? 0),
      arrivedNs: r.result.arrivedNs,
      spun: r.result.spun === true,
      hosted: r.result.hosted === true,
      queueNs: r.queueNs,
      startNs: r.startNs,
      instance: r.instance,
    };
  }
}
