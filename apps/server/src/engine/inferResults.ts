import type { Tensor } from '@ensemble-studio/core';
import type { BackendCall, BackendReply } from './backends/modelBackend.ts';
import { copyStamps } from './computeStamps.ts';
import type { InferRequest, InferResult } from './modelRuntimeTypes.ts';
import type { SequenceResult } from './sequenceTypes.ts';

/** The rows of a request: its first input's first dimension (1 when it has none); a batching model's batch size. */
export function firstDim(inputs: Record<string, Tensor>): number {
  return Object.values(inputs)[0]?.shape[0] ?? 1;
}

/** A backend's reply as a model request's result, `batchSize` rows run together. */
export function fromReply(r: BackendReply, batchSize: number): InferResult {
  const out = copyStamps<InferResult>(
    {
      outputs: r.outputs,
      ...(r.responses ? { responses: r.responses } : {}),
      queueMs: r.queueNs / 1e6,
      computeMs: r.computeNs / 1e6,
      batchSize,
      instance: r.instance,
    },
    r,
  );
  if (r.arrivedNs !== undefined) {
    out.arrivedNs = r.arrivedNs;
    out.spun = r.spun === true;
  }
  return out;
}

/** A sequence batcher's result as a model request's result. */
export function fromSequence(r: SequenceResult): InferResult {
  const out: InferResult = {
    outputs: r.outputs,
    queueMs: r.queueNs / 1e6,
    computeMs: r.computeNs / 1e6,
    batchSize: r.batchSize,
    instance: r.instance,
  };
  if (r.responses) out.responses = r.responses;
  return out;
}

const NOTHING_TO_PASS: Pick<BackendCall, 'respond' | 'onLog'> = Object.freeze({});

/** What a request passes through to its backend untouched: the decoupled sink and the log listener. */
export function passThrough(req: InferRequest): Pick<BackendCall, 'respond' | 'onLog'> {
  if (!req.respond && !req.onLog) return NOTHING_TO_PASS; // most requests: no objects made for them
  return { ...(req.respond ? { respond: req.respond } : {}), ...(req.onLog ? { onLog: req.onLog } : {}) };
}
