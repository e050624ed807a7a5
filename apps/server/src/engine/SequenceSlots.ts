import type { Tensor } from '@ensemble-studio/core';
import type { Schedule } from './Batcher.ts';
import type { SequenceFlags } from './sequenceTensors.ts';
import type { Binding, SequenceEndReason } from './sequenceTypes.ts';

/** A new sequence waiting for a free slot: its requests queue behind `chain` until `assign` runs. */
interface Backlogged {
  b: Binding;
  assign: (instance: number) => void;
}

/**
 * A sequence's key in the bindings: its id itself. A Map tells the number 1 from the string '1' as Triton's
 * correlation ids of the two types differ, with no string made per request.
 */
type SequenceKey = number | string;

/** What the slot table needs of its sequence batcher. */
export interface SequenceSlotsOptions {
  model: string;
  instances: number;
  /** Slots per instance (Infinity: `oldest` without max_candidate_sequences). */
  slots: number;
  /** A sequence without requests for this long ends. */
  idleMs: number;
  schedule: Schedule;
  now: () => number;
  instanceName: (i: number) => string;
  /** The state a new sequence starts with. */
  initial: () => Record<string, Tensor>;
  onBound?: (id: number | string, instance: string) => void;
  onEnded?: (id: number | string, reason: SequenceEndReason) => void;
}

/**
 * Which sequence holds which slot: a new sequence binds to the least-loaded instance with a free slot or
 * waits in a FIFO backlog; a slot is freed by END, the idle timeout, a release, or its instance failing (the
 * sequence is then remembered as lost) and handed to the oldest backlogged sequence.
 */
export class SequenceSlots {
  private bindings = new Map<SequenceKey, Binding>();
  private backlog: Backlogged[] = [];
  private lost = new Map<SequenceKey, string>();

  constructor(private readonly o: SequenceSlotsOptions) {}

  /** The sequence bound (or backlogged) under `key`. */
  get(key: SequenceKey): Binding | undefined {
    return this.bindings.get(key);
  }

  /** New sequences waiting for a slot. */
  get backlogged(): number {
    return this.backlog.length;
  }

  /** Sequences holding a slot, then those in the backlog (instance -1): id, instance index, last activity. */
  list(): Binding[] {
    const bound = [...this.bindings.values()].filter((b) => b.instance >= 0);
    return [...bound, ...this.backlog.map((w) => w.b)];
  }

  /** Why the sequence under `key` was lost (its instance failed), or undefined. */
  lostReason(key: SequenceKey): string | undefined {
    return this.lost.get(key);
  }

  /** The sequence under `key` starts again: it is no longer reported as lost. */
  forgetLost(key: SequenceKey): void {
    this.lost.delete(key);
  }

  /** A new sequence takes a slot on the least-loaded instance, or joins the backlog. */
  bind(id: SequenceKey, onBound?: (instance: string) => void): Binding {
    const b: Binding = {
      id,
      instance: -1,
      state: this.o.initial(),
      lastActiveMs: this.o.now(),
      chain: Promise.resolve(),
      pending: 0,
    };
    this.bindings.set(id, b);
    const assign = (instance: number): void => {
      b.instance = instance;
      b.lastActiveMs = this.o.now();
      this.o.onBound?.(id, this.o.instanceName(instance));
      onBound?.(this.o.instanceName(instance));
    };
    const instance = this.freeInstance();
    if (instance >= 0) assign(instance);
    else
      b.chain = new Promise<void>((resolve) =>
        this.backlog.push({
          b,
          assign: (i) => {
            assign(i);
            resolve();
          },
        }),
      );
    return b;
  }

  /** The least-loaded instance with a free slot, or -1. */
  freeInstance(): number {
    const load = new Array<number>(this.o.instances).fill(0);
    for (const x of this.bindings.values()) if (x.instance >= 0) load[x.instance]!++;
    const best = Math.min(...load);
    return best < this.o.slots ? load.indexOf(best) : -1;
  }

  /** Frees a sequence now (cancelled run / closed stream). */
  release(id: SequenceKey, reason: 'cancelled' | 'end'): void {
    const b = this.bindings.get(id);
    if (!b) return;
    this.free(id, b, reason);
  }

  /** The instance at `index` died: its sequences' state is gone. */
  instanceFailed(index: number, message: string): void {
    for (const [key, b] of [...this.bindings].filter(([, x]) => x.instance === index)) {
      this.lost.set(
        key,
        `the state of sequence ${String(b.id)} on model '${this.o.model}' was lost (${message}); restart the sequence with START`,
      );
      this.free(key, b, 'failed');
    }
  }

  /** A request of `b` finished: END frees its slot, else its idle timer runs from now. */
  finished(key: SequenceKey, b: Binding, flags: SequenceFlags): void {
    b.pending--;
    b.lastActiveMs = this.o.now();
    if (this.bindings.get(key) !== b) return;
    if (flags.end) {
      this.free(key, b, 'end');
      return;
    }
    this.armIdle(key, b, this.o.idleMs);
  }

  /** Ends a sequence (bound or backlogged) and hands its slot to the oldest backlogged sequence. */
  private free(key: SequenceKey, b: Binding, reason: SequenceEndReason): void {
    b.cancelIdle?.();
    b.cancelIdle = undefined;
    this.bindings.delete(key);
    this.o.onEnded?.(b.id, reason);
    if (b.instance < 0) {
      this.backlog = this.backlog.filter((w) => w.b !== b);
      return;
    }
    const next = this.backlog.length > 0 ? this.freeInstance() : -1;
    if (next >= 0) this.backlog.shift()!.assign(next);
  }

  /**
   * One idle timer per sequence, not one per request (a stream sends ~31 chunks a second): when it
   * fires it frees the sequence if it has really been idle that long, or waits out the rest.
   */
  private armIdle(key: SequenceKey, b: Binding, ms: number): void {
    if (b.cancelIdle) return;
    b.cancelIdle = this.o.schedule(() => {
      b.cancelIdle = undefined;
      if (this.bindings.get(key) !== b || b.pending > 0) return; // a pending request re-arms it when it ends
      const idle = this.o.now() - b.lastActiveMs;
      if (idle >= this.o.idleMs) this.free(key, b, 'idle');
      else this.armIdle(key, b, this.o.idleMs - idle);
    }, ms);
  }
}
