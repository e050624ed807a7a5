// The types a sequence batcher shares with the model runtime and its `oldest` batches.
import type { Tensor } from '@ensemble-studio/core';
import type { CancelSignal } from './cancel.ts';
import type { SequenceFlags } from './sequenceTensors.ts';

/** Runs feeds on one instance (the model runtime does threads and transfers). */
/** `fresh`: feeds built for this request alone (their buffers may move to the worker instead of being copied). */
/** `flags`: the request's sequence (a backend that hands requests to user code passes on its id and START/END); `extra`: passed to the backend untouched. */
export type InstanceRunner = (
  feeds: Record<string, Tensor>,
  instance: number,
  signal?: CancelSignal,
  summarize?: boolean,
  fresh?: ReadonlySet<Tensor>,
  flags?: SequenceFlags,
  extra?: object,
) => Promise<{
  outputs: Record<string, Tensor>;
  responses?: Record<string, Tensor>[];
  instance: string;
  queueNs: number;
  computeNs: number;
}>;

export interface SequenceResult {
  outputs: Record<string, Tensor>;
  responses?: Record<string, Tensor>[];
  instance: string;
  queueNs: number;
  computeNs: number;
  batchSize: number;
}

/** Why a sequence ended: END processed, idle timeout, its instance failed, or its run or stream went away. */
export type SequenceEndReason = 'end' | 'idle' | 'failed' | 'cancelled';

/** Which instance holds a sequence (observable through `Engine.sequences()`); `instance` is -1 while it waits in the backlog. */
export interface Binding {
  id: number | string;
  instance: number;
  state: Record<string, Tensor>;
  lastActiveMs: number;
  chain: Promise<unknown>;
  /** Requests accepted and not yet finished (a sequence never idles out while one is pending). */
  pending: number;
  cancelIdle?: () => void;
}
