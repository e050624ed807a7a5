import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { Batcher, realSchedule, type Schedule } from './Batcher.ts';
import type { CancelSignal } from './cancel.ts';
import { abortError, EngineError, untilAborted } from './errors.ts';
import { SequenceSlots } from './SequenceSlots.ts';
import { batchKey, runOldestBatch, type OldestContext, type OldestItem } from './oldestBatch.ts';
import { controlTensors, initialStates, stateNames, type SequenceFlags } from './sequenceTensors.ts';
import type { Binding, InstanceRunner, SequenceEndReason, SequenceResult } from './sequenceTypes.ts';

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
  onEnded?: (id: number | string, reason: SequenceEndReason) => void;
  /**
   * New sequences that may wait for a slot at once; a start beyond them fails with 'limit' (each waiting one holds
   * one of the server's run slots, which every other model needs too). Unlimited when absent.
   */
  maxBacklog?: number;
}

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
  /** Which sequence holds which slot (bindings, backlog, idle expiry). */
  private readonly table: SequenceSlots;
  /** Slots per instance (Infinity: `oldest` without max_candidate_sequences). */
  readonly slots: number;
  private batchers: Batcher<OldestItem, SequenceResult>[] = [];
  private readonly idleMs: number;
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
    const schedule = o.schedule ?? realSchedule;
    this.slots = sb.oldest ? sb.oldest.max_candidate_sequences || Infinity : Math.max(1, o.config.max_batch_size ?? 0);
    this.table = new SequenceSlots({
      model: o.model,
      instances: o.instances,
      slots: this.slots,
      idleMs: this.idleMs,
      schedule,
      now: o.now ?? Date.now,
      instanceName: o.instanceName,
      initial: () => this.initial(),
      ...(o.onBound ? { onBound: o.onBound } : {}),
      ...(o.onEnded ? { onEnded: o.onEnded } : {}),
    });
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
            schedule,
            gather: 'turn',
          }),
        );
      }
    }
  }

  /** Sequences holding a slot, then those in the backlog (instance -1): id, instance index, last activity. */
  list(): Binding[] {
    return this.table.list();
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
    let b = this.table.get(key);
    let restarted = false;
    if (flags.start) {
      this.table.forgetLost(key);
      if (!b && this.table.backlogged >= (this.o.maxBacklog ?? Infinity) && this.table.freeInstance() < 0)
        return Promise.reject(
          new EngineError(
            'limit',
            `model '${this.o.model}' has every sequence slot held and ${this.table.backlogged} new sequences waiting for one (at most ${this.o.maxBacklog}, a quarter of maxConcurrentRuns); try again when a sequence ends`,
          ),
        );
      if (!b) b = this.table.bind(key, onBound);
      else {
        restarted = true;
        b.chain = b.chain.then(() => {
          b!.state = this.initial();
        });
      }
    } else if (!b) {
      const why = this.table.lostReason(key);
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
    binding.chain = whenSettled(step, () => this.table.finished(key, binding, flags));
    return binding.instance < 0 && signal ? untilAborted(step, signal) : step;
  }

  /** Frees a sequence now (cancelled run / closed stream). */
  release(id: number | string, reason: 'cancelled' | 'end' = 'cancelled'): void {
    this.table.release(id, reason);
  }

  /** The instance at `index` died: its sequences' state is gone. */
  instanceFailed(index: number, message: string): void {
    this.table.instanceFailed(index, message);
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

/** `then(fn, fn)`, with `fn` an argument rather than a named closure (tsx names those with a defineProperty each). */
function whenSettled(p: Promise<unknown>, fn: () => void): Promise<void> {
  return p.then(fn, fn);
}
