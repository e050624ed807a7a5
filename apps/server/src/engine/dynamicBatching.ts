import type { ModelConfig } from '@ensemble-studio/core';
import { Batcher, type QueuePolicy } from './Batcher.ts';
import { EngineError } from './errors.ts';
import type { BackendCall, BackendReply, ModelBackend } from './backends/modelBackend.ts';
import { copyStamps } from './computeStamps.ts';
import { firstDim, fromReply, passThrough } from './inferResults.ts';
import { recordExecution, type ModelStats } from './Metrics.ts';
import type { InferRequest, InferResult } from './modelRuntimeTypes.ts';
import { concatBatch, splitBatch } from './batchTensors.ts';
import { isOwned, markOwned } from './tensorTransfer.ts';

/** A request waiting in the dynamic batcher. */
export interface BatchItem {
  req: InferRequest;
}

/** A batch item's result: a Python batch can fail one request alone. */
export type ItemResult = InferResult | Error;

/**
 * The dynamic batcher of a model with `dynamic_batching` and max_batch_size > 0: requests with the same
 * inputs' types and inner dims gather up to the batch size or the queue delay, one batch per free instance.
 * A backend that concatenates (ONNX) runs a batch as one tensor per input and splits the outputs by rows;
 * Python's `execute` gets the list of requests and may fail one alone.
 */
export function createDynamicBatcher(
  cfg: ModelConfig,
  backend: ModelBackend,
  stats: ModelStats,
  execute: (call: BackendCall) => Promise<BackendReply>,
): Batcher<BatchItem, ItemResult> {
  const levels = priorityLevels(cfg);
  return new Batcher<BatchItem, ItemResult>({
    maxBatchSize: cfg.max_batch_size ?? 0,
    preferredSizes: cfg.dynamic_batching?.preferred_batch_size,
    maxQueueDelayMs: (cfg.dynamic_batching?.max_queue_delay_microseconds ?? 0) / 1000,
    capacity: backend.pool.size,
    sizeOf: (it) => Object.values(it.req.inputs)[0]?.shape[0] ?? 1,
    keyOf: (it) =>
      Object.entries(it.req.inputs)
        .map(([k, t]) => `${k}:${t.datatype}[${t.shape.slice(1).join(',')}]`)
        .sort()
        .join('|'),
    dispatch: (items) => (backend.concatenates ? runConcatenated(items, execute) : runList(items, backend, stats)),
    ...(levels ? { priorityOf: levels.of, policyOf: levels.policy } : policyOption(queuePolicy(cfg))),
  });
}

const policyOption = (policy: QueuePolicy<BatchItem> | undefined) => (policy ? { policy } : {});

/** The dynamic batcher's fields as Triton reads them (a uint64 may come as a string). */
interface DynamicBatching {
  priority_levels?: number | string;
  default_priority_level?: number | string;
  default_queue_policy?: Record<string, unknown>;
  priority_queue_policy?: Record<string, Record<string, unknown>>;
}

/**
 * Triton's priority levels (`priority_levels` > 0): a request's `priority` picks its level, 1 served first; 0 or
 * one above the levels means `default_priority_level`, as Triton's `SetPriority`. Each level waits under its own
 * `priority_queue_policy`, else `default_queue_policy`.
 */
export function priorityLevels(
  cfg: ModelConfig,
): { of: (it: BatchItem) => number; policy: (level: number) => QueuePolicy<BatchItem> | undefined } | undefined {
  const db = cfg.dynamic_batching as DynamicBatching | undefined;
  const max = Number(db?.priority_levels ?? 0) || 0;
  if (!db || max <= 0) return undefined;
  const fallback = Number(db.default_priority_level ?? 0) || 0;
  const shared = policyFrom(db.default_queue_policy);
  const own = new Map(Object.entries(db.priority_queue_policy ?? {}).map(([k, p]) => [Number(k), policyFrom(p)]));
  return {
    of: (it) => {
      const p = it.req.priority ?? 0;
      return p === 0 || p > max ? fallback : p;
    },
    policy: (level) => (own.has(level) ? own.get(level) : shared),
  };
}

/**
 * Triton's `default_queue_policy` for the dynamic batcher: a full queue refuses the next request ("Exceeds maximum
 * queue size"), and a request that waited past its timeout is refused ("Request timeout expired", `REJECT`) or
 * waits behind the others (`DELAY`); with `allow_timeout_override` a request's own shorter timeout counts. Both
 * refusals are Triton's UNAVAILABLE (`limit`: 503, counted REJECTED).
 */
export function queuePolicy(cfg: ModelConfig): QueuePolicy<BatchItem> | undefined {
  return policyFrom((cfg.dynamic_batching as DynamicBatching | undefined)?.default_queue_policy);
}

/** A `ModelQueuePolicy` message as the batcher applies it; none when it bounds nothing. */
function policyFrom(p: Record<string, unknown> | undefined): QueuePolicy<BatchItem> | undefined {
  if (!p) return undefined;
  const maxQueueSize = Number(p.max_queue_size ?? 0) || 0;
  const timeoutUs = Number(p.default_timeout_microseconds ?? 0) || 0;
  const override = p.allow_timeout_override === true;
  if (maxQueueSize === 0 && timeoutUs === 0) return undefined;
  return {
    maxQueueSize,
    action: p.timeout_action === 'DELAY' ? 'delay' : 'reject',
    // As Triton's queue: the request's timeout replaces the default only when it is set and shorter.
    timeoutMs: (it) =>
      (override && it.req.queueTimeoutUs && it.req.queueTimeoutUs < timeoutUs ? it.req.queueTimeoutUs : timeoutUs) /
      1000,
    refusal: (why) =>
      new EngineError('limit', why === 'full' ? 'Exceeds maximum queue size' : 'Request timeout expired'),
  };
}

/** One session run over the batch's rows, its outputs split back to each request. */
async function runConcatenated(
  items: BatchItem[],
  execute: (call: BackendCall) => Promise<BackendReply>,
): Promise<InferResult[]> {
  const rows = items.map((it) => firstDim(it.req.inputs));
  const names = Object.keys(items[0]!.req.inputs);
  const feeds = Object.fromEntries(names.map((n) => [n, concatBatch(items.map((it) => it.req.inputs[n]!))]));
  const single = items.length === 1 ? items[0]!.req.canTransfer : undefined;
  const summarize = items.length === 1 && items[0]!.req.summarize;
  const r = await execute({
    inputs: feeds,
    canTransfer: (t) => (single ? single(t) : isOwned(t) || items.length > 1),
    summarize,
    requests: items.length,
  });
  const split = Object.entries(r.outputs).map(([n, t]) => [n, splitBatch(t, rows)] as const);
  const batchSize = rows.reduce((a, b) => a + b, 0);
  return items.map((_, k) =>
    copyStamps<InferResult>(
      {
        outputs: Object.fromEntries(split.map(([n, parts]) => [n, markOwned(parts[k]!)])),
        queueMs: r.queueNs / 1e6,
        computeMs: r.computeNs / 1e6,
        batchSize,
        instance: r.instance,
      },
      r,
    ),
  );
}

/** A dynamic batch on a backend that takes a list of requests (Python): one execution, each request its own result. */
async function runList(items: BatchItem[], backend: ModelBackend, stats: ModelStats): Promise<ItemResult[]> {
  const replies = await backend.callMany(
    items.map((it) => ({
      inputs: it.req.inputs,
      summarize: items.length === 1 && it.req.summarize,
      ...passThrough(it.req),
    })),
  );
  const ok = replies.find((r): r is BackendReply => !(r instanceof Error));
  if (ok)
    recordExecution(
      stats,
      items.reduce((a, it) => a + firstDim(it.req.inputs), 0),
      ok,
    );
  return replies.map((r) => (r instanceof Error ? r : fromReply(r, items.length)));
}
