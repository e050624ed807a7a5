// A model worker's copies of other models (hostAhead.ts): the reader of its chain's outputs run here, after its reply,
// on a session of its own, so that request needs no hop to another thread and no turn of the main thread first.
import type { Tensor } from '@ensemble-studio/core';
import { copyData } from '../../tensorTransfer.ts';
import { SessionSlot } from './sessionSlot.ts';
import type { HostNext, LoadSpec, PortableTensor } from './workerProtocol.ts';

type ModelSpec = Extract<LoadSpec, { kind: 'model' }>;

/** A session this worker runs requests on: its own model's, or a guest's. */
export interface HostedModel {
  slot: SessionSlot;
  spec: ModelSpec;
}

/**
 * The guest models of one worker, by key (`guest` messages), one per model name: a guest loaded again under a new key
 * (the model reloaded) replaces the old copy, whose session is released once the runs on it are done.
 * @example const guests = new GuestModels(load); await guests.load('rec#2', spec); guests.get('rec#2')
 */
export class GuestModels {
  private readonly byKey = new Map<string, HostedModel>();
  /** Keys dropped, so that a copy still loading when its model went is released as it comes. */
  private readonly dropped = new Set<string>();

  constructor(private readonly open: (spec: ModelSpec) => Promise<SessionSlot>) {}

  async load(key: string, spec: ModelSpec): Promise<void> {
    const slot = await this.open(spec);
    if (this.dropped.has(key)) return void slot.close().catch(() => {});
    for (const [k, m] of this.byKey)
      if (m.spec.model === spec.model) {
        this.byKey.delete(k);
        void m.slot.close().catch(() => {});
      }
    this.byKey.set(key, { slot, spec });
  }

  /** Releases the copy under `key` once the runs on it are done. */
  drop(key: string): void {
    const m = this.byKey.get(key);
    this.byKey.delete(key);
    this.dropped.add(key);
    void m?.slot.close().catch(() => {});
  }

  get(key: string): HostedModel | undefined {
    return this.byKey.get(key);
  }
}

/**
 * The feeds of `next.request` from a chain's last outputs, copied (the chain's reply moves the originals); undefined
 * when one is missing.
 */
export function nextFeeds(next: HostNext, outputs: Record<string, Tensor>): Record<string, PortableTensor> | undefined {
  const feeds: Record<string, PortableTensor> = {};
  for (const name in next.feeds) {
    const t = outputs[next.feeds[name]!];
    if (!t) return undefined;
    feeds[name] = { datatype: t.datatype, shape: [...t.shape], data: copyData(t.data) } as PortableTensor;
  }
  return feeds;
}
