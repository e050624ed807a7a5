import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { Batcher, realSchedule, type Schedule } from './Batcher.ts';
import type { CancelSignal } from './cancel.ts';
import { abortError, EngineError } from './errors.ts';
import { batchKey, runOldestBatch, type OldestContext, type OldestItem } from './oldestBatch.ts';
import { controlTensors, initialStates, stateNames, type SequenceFlags } from './sequenceTensors.ts';
import type { Binding, InstanceRunner, SequenceResult } from './sequenceTypes.ts';

/** A new sequence waiting for a free slot: its requests queue behind `chain` until `assign` runs. */
interface Backlogged {
  b: Binding;
  assign: (instance: number) => void;
}

export interface SequenceBatcherOptions {
  model: string;
  config: ModelConfig;
  instances: number;
  instanceName: (i: number) => string;
  run: InstanceRunner;
  /** False when the backend takes a list of requests, not rows of one tensor: `oldest` then runs each request on its sequence's instance. */
  batchesRows?: boolean;
  readFile?: (name: string) => Uint8Array;
  schedule?: Schedule;
  now?: () => number;
  /** A new sequence was bound to an instance. */
  onBound?: (id: number | string, instance: string) => void;
  /** A sequence ended: END processed, idle timeout, or its instance failed. */
  onEnded?: (id: number | string, reason: 'end' | 'idle' | 'failed' | 'cancelled') => void;
  /**
   * New sequences that may wait for a slot at once; a start beyond them fails with 'limit' (each waiting one holds
   * one of the server's run slots, which every other model needs too). Unlimited when absent.
   */
  maxBacklog?: number;
}

/**
 * A sequence's key in the bindings: its id itself. A Map tells the number 1 from the string '1' as Triton's
 * correlation ids of the two types differ, with no string made per request.
 */
type SequenceKey = number | string;

/**
 * `sequence_batching`: a correlation id binds to a slot of one instance (least-loaded
 * for a new sequence) until END or the idle timeout; START on an active id restarts it; a request
 * without START for an unknown id is rejected. Each instance has `max(1, max_batch_size)` slots
 * under `direct` and `max_candidate_sequences` (when > 0) under `oldest`; a new sequence finding
 * none free waits in a FIFO backlog, its requests queued in order, until a slot is released.
 * Implicit state is carried per sequence. `direct` runs each request on its instance; `oldest`
 * batches requests of different sequences on the same instance (batch-first state concatenated
 * along dim 0), never two of one sequence in a batch.
 */
export class SequenceBatcher {
  private bindings = new Map<SequenceKey, Binding>();
  private backlog: Backlogged[] = [];
  private lost = new Map<SequenceKey, string>();
  /** Slots per instance (Infinity: `oldest` without max_candidate_sequences). */
  readonly slots: number;
  private batchers: Batcher<OldestItem, SequenceResult>[] = [];
  private readonly idleMs: number;
  private readonly schedule: Schedule;
  private readonly now: () => number;
  /** The model's state tensors, read for every request of a stream. */
  private readonly states: { input: string; output: string }[];
  /** What a batch of `oldest` needs of this batcher. */
  private readonly oldest: OldestContext;

  constructor(private readonly o: SequenceBatcherOptions) {
    const sb = o.config.sequence_batching ?? {};
    this.states = stateNames(o.config);
    this.oldest = {
      model: o.model,
      config: o.config,
      states: this.states,
      run: o.run,
      keepState: (b, outputs) => this.keepState(b, outputs),
    };
    this.idleMs = (sb.max_sequence_idle_microseconds || 1_000_000) / 1000;
    this.schedule = o.schedule ?? realSchedule;
    this.now = o.now ?? Date.now;
    this.slots = sb.oldest ? sb.oldest.max_candidate_sequences || Infinity : Math.max(1, o.config.max_batch_size ?? 0);
    if (sb.oldest && o.batchesRows !== false) {
      const mbs = Math.max(1, o.config.max_batch_size ?? 0);
      for (let i = 0; i < o.instances; i++) {
        this.batchers.push(
          new Batcher<OldestItem, SequenceResult>({
            maxBatchSize: mbs,
            preferredSizes: sb.oldest.preferred_batch_size,
            maxQueueDelayMs: (sb.oldest.max_queue_delay_microseconds ?? 0) / 1000,
            capacity: 1,
            keyOf: (it) => batchKey(it.inputs),
            dispatch: (items) => runOldestBatch(this.oldest, i, items),
            schedule: this.schedule,
            gather: 'turn',
          }),
        );
      }
    }
  }

  /** Sequences holding a slot, then those in the backlog (instance -1): id, instance index, last activity. */
  list(): Binding[] {
    const bound = [...this.bindings.values()].filter((b) => b.instance >= 0);
    return [...bound, ...this.backlog.map((w) => w.b)];
  }

  /** Runs one request of a sequence; requests of one sequence run in order. `summarize`: see InferRequest. */
  infer(
    inputs: Record<string, Tensor>,
    flags: SequenceFlags,
    signal?: CancelSignal,
    onBound?: (instance: string) => void,
    summarize = false,
    extra?: object,
  ): Promise<SequenceResult> {
    if (flags.id === 0 || flags.id === '') {
      return Promise.reject(
        new EngineError(
          'invalid-input',
          `requests to model '${this.o.model}' need a non-zero (or non-empty) sequence id`,
        ),
      );
    }
    const key = flags.id;
    let b = this.bindings.get(key);
    let restarted = false;
    if (flags.start) {
      this.lost.delete(key);
      if (!b && this.backlog.length >= (this.o.maxBacklog ?? Infinity) && this.freeInstance() < 0)
        return Promise.reject(
          new EngineError(
            'limit',
            `model '${this.o.model}' has every sequence slot held and ${this.backlog.length} new sequences waiting for one (at most ${this.o.maxBacklog}, a quarter of maxConcurrentRuns); try again when a sequence ends`,
          ),
        );
      if (!b) b = this.bind(key, onBound);
      else {
        restarted = true;
        b.chain = b.chain.then(() => {
          b!.state = this.initial();
        });
      }
    } else if (!b) {
      const why = this.lost.get(key);
      return Promise.reject(
        new EngineError(
          why ? 'sequence-lost' : 'sequence-unknown',
          why ??
            `inference request for sequence ${String(flags.id)} to model '${this.o.model}' must specify the START flag on the first request of the sequence (it is not active: a sequence also ends after END or ${this.idleMs / 1000} s without requests)`,
        ),
      );
    }
    const binding = b;
    // A stream's next chunk usually comes after its last one finished: nothing to wait for, so no link in the chain.
    const idle = binding.pending === 0 && binding.instance >= 0 && !restarted;
    binding.pending++;
    const step = idle
      ? this.step(binding, inputs, flags, signal, summarize, extra)
      : binding.chain.then(() => this.step(binding, inputs, flags, signal, summarize, extra));
    const after = () => this.after(key, binding, flags);
    binding.chain = step.then(after, after);
    return binding.instance < 0 && signal ? untilAborted(step, signal) : step;
  }

  /** Frees a sequence now (cancelled run / closed stream). */
  release(id: number | string, reason: 'cancelled' | 'end' = 'cancelled'): void {
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

  private initial(): Record<string, Tensor> {
    return initialStates(
      this.o.config,
      this.o.readFile ??
        (() => {
          throw new Error('initial_state data_file cannot be read');
        }),
    );
  }

  /** A new sequence takes a slot on the least-loaded instance, or joins the backlog. */
  private bind(id: SequenceKey, onBound?: (instance: string) => void): Binding {
    const b: Binding = {
      id,
      instance: -1,
      state: this.initial(),
      lastActiveMs: this.now(),
      chain: Promise.resolve(),
      pending: 0,
    };
    this.bindings.set(id, b);
    const assign = (instance: number): void => {
      b.instance = instance;
      b.lastActiveMs = this.now();
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
  private freeInstance(): number {
    const load = new Array<number>(this.o.instances).fill(0);
    for (const x of this.bindings.values()) if (x.instance >= 0) load[x.instance]!++;
    const best = Math.min(...load);
    return best < this.slots ? load.indexOf(best) : -1;
  }

  /** Ends a sequence (bound or backlogged) and hands its slot to the oldest backlogged sequence. */
  private free(key: SequenceKey, b: Binding, reason: 'end' | 'idle' | 'failed' | 'cancelled'): void {
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

  private after(key: SequenceKey, b: Binding, flags: SequenceFlags): void {
    b.pending--;
    b.lastActiveMs = this.now();
    if (this.bindings.get(key) !== b) return;
    if (flags.end) {
      this.free(key, b, 'end');
      return;
    }
    this.armIdle(key, b, this.idleMs);
  }

  /**
   * One idle timer per sequence, not one per request (a stream sends ~31 chunks a second): when it
   * fires it frees the sequence if it has really been idle that long, or waits out the rest.
   */
  private armIdle(key: SequenceKey, b: Binding, ms: number): void {
    if (b.cancelIdle) return;
    b.cancelIdle = this.schedule(() => {
      b.cancelIdle = undefined;
      if (this.bindings.get(key) !== b || b.pending > 0) return; // a pending request re-arms it when it ends
      const idle = this.now() - b.lastActiveMs;
      if (idle >= this.idleMs) this.free(key, b, 'idle');
      else this.armIdle(key, b, this.idleMs - idle);
    }, ms);
  }

  /** One request on its sequence's instance: into the instance's batcher (`oldest`), or alone with its state. */
  private step(
    b: Binding,
    inputs: Record<string, Tensor>,
    flags: SequenceFlags,
    signal: CancelSignal | undefined,
    summarize: boolean,
    extra?: object,
  ): Promise<SequenceResult> {
    if (signal?.aborted) return Promise.reject(abortError(signal)); // it waited in the backlog past its run's timeout
    const batcher = this.batchers[b.instance];
    // Batched rows lose a worker's summaries when split: a watched run summarises its (small) rows itself.
    if (batcher) return batcher.enqueue({ b, inputs, flags }, signal);
    return this.runAlone(b, inputs, flags, signal, summarize, extra);
  }

  private async runAlone(
    b: Binding,
    inputs: Record<string, Tensor>,
    flags: SequenceFlags,
    signal: CancelSignal | undefined,
    summarize: boolean,
    extra?: object,
  ): Promise<SequenceResult> {
    const control = controlTensors(this.o.config, [flags]);
    const feeds = { ...inputs, ...b.state, ...control };
    const r = await this.o.run(feeds, b.instance, signal, summarize, new Set(Object.values(control)), flags, extra);
    this.keepState(b, r.outputs);
    return { ...r, batchSize: 1 };
  }

  private keepState(b: Binding, outputs: Record<string, Tensor>): void {
    for (const { input, output } of this.states) {
      const next = outputs[output];
      if (!next)
        throw new EngineError('node-failed', `model '${this.o.model}' did not return its state output '${output}'`);
      b.state[input] = next;
    }
  }
}

/** `p`, or the abort error as soon as `signal` aborts (a request waiting in the backlog). */
function untilAborted<T>(p: Promise<T>, signal: CancelSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
