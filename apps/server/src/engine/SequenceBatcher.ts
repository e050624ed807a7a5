import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { Batcher, realSchedule, type Schedule } from './Batcher.ts';
import { EngineError } from './errors.ts';
import { controlTensors, initialStates, stateNames, type SequenceFlags } from './sequenceTensors.ts';
import { concatBatch, sameDims, splitBatch } from './tensors.ts';

/** Runs feeds on one instance (the model runtime does threads and transfers). */
export type InstanceRunner = (feeds: Record<string, Tensor>, instance: number, signal?: AbortSignal, summarize?: boolean) => Promise<{ outputs: Record<string, Tensor>; instance: string; queueNs: number; computeNs: number }>;

export interface SequenceResult { outputs: Record<string, Tensor>; instance: string; queueNs: number; computeNs: number; batchSize: number }

/** Which instance holds a sequence (observable through `Engine.sequences()`). */
export interface Binding { id: number | string; instance: number; state: Record<string, Tensor>; lastActiveMs: number; chain: Promise<unknown>; cancelIdle?: () => void }

export interface SequenceBatcherOptions {
  model: string;
  config: ModelConfig;
  instances: number;
  instanceName: (i: number) => string;
  run: InstanceRunner;
  readFile?: (name: string) => Uint8Array;
  schedule?: Schedule;
  now?: () => number;
  /** A new sequence was bound to an instance. */
  onBound?: (id: number | string, instance: string) => void;
  /** A sequence ended: END processed, idle timeout, or its instance failed. */
  onEnded?: (id: number | string, reason: 'end' | 'idle' | 'failed' | 'cancelled') => void;
}

interface OldestItem { b: Binding; inputs: Record<string, Tensor>; flags: SequenceFlags }

const keyOf = (id: number | string): string => `${typeof id}:${id}`;

/**
 * `sequence_batching` (TRITON §4): a correlation id binds to one instance (least-loaded for a new
 * sequence) until END or the idle timeout; START on an active id restarts it; a request without
 * START for an unknown id is rejected. Implicit state is carried per sequence. `direct` runs each
 * request on its instance; `oldest` batches requests of different sequences on the same instance
 * (batch-first state concatenated along dim 0), never two of one sequence in a batch.
 */
export class SequenceBatcher {
  private bindings = new Map<string, Binding>();
  private lost = new Map<string, string>();
  private batchers: Batcher<OldestItem, SequenceResult>[] = [];
  private readonly idleMs: number;
  private readonly schedule: Schedule;
  private readonly now: () => number;

  constructor(private readonly o: SequenceBatcherOptions) {
    const sb = o.config.sequence_batching ?? {};
    this.idleMs = (sb.max_sequence_idle_microseconds || 1_000_000) / 1000;
    this.schedule = o.schedule ?? realSchedule;
    this.now = o.now ?? Date.now;
    if (sb.oldest) {
      const mbs = Math.max(1, o.config.max_batch_size ?? 0);
      for (let i = 0; i < o.instances; i++) {
        this.batchers.push(new Batcher<OldestItem, SequenceResult>({
          maxBatchSize: mbs,
          preferredSizes: sb.oldest.preferred_batch_size,
          maxQueueDelayMs: (sb.oldest.max_queue_delay_microseconds ?? 0) / 1000,
          capacity: 1,
          keyOf: (it) => Object.entries(it.inputs).map(([k, t]) => `${k}:${t.datatype}${t.shape.slice(1).join('x')}`).join('|'),
          dispatch: (items) => this.runBatch(i, items),
          schedule: this.schedule,
        }));
      }
    }
  }

  /** Active sequences: id, instance index, last activity. */
  list(): Binding[] { return [...this.bindings.values()]; }

  /** Runs one request of a sequence; requests of one sequence run in order. `summarize`: see InferRequest. */
  infer(inputs: Record<string, Tensor>, flags: SequenceFlags, signal?: AbortSignal, onBound?: (instance: string) => void, summarize = false): Promise<SequenceResult> {
    if (flags.id === 0 || flags.id === '') {
      return Promise.reject(new EngineError('invalid-input', `requests to model '${this.o.model}' need a non-zero (or non-empty) sequence id`));
    }
    const key = keyOf(flags.id);
    let b = this.bindings.get(key);
    if (flags.start) {
      this.lost.delete(key);
      if (!b) {
        b = this.bind(key, flags.id);
        onBound?.(this.o.instanceName(b.instance));
      }
      else b.chain = b.chain.then(() => { b!.state = this.initial(); });
    } else if (!b) {
      const why = this.lost.get(key);
      return Promise.reject(new EngineError(why ? 'sequence-lost' : 'sequence-unknown', why ??
        `sequence ${String(flags.id)} is not active on model '${this.o.model}': its first request must set START (a sequence also ends after END or ${this.idleMs / 1000} s without requests)`));
    }
    const binding = b;
    binding.cancelIdle?.();
    binding.cancelIdle = undefined;
    const step = binding.chain.then(() => this.step(binding, inputs, flags, signal, summarize));
    binding.chain = step.then(() => this.after(key, binding, flags), () => this.after(key, binding, flags));
    return step;
  }

  /** Frees a sequence now (cancelled run / closed stream). */
  release(id: number | string, reason: 'cancelled' | 'end' = 'cancelled'): void {
    const key = keyOf(id);
    const b = this.bindings.get(key);
    if (!b) return;
    b.cancelIdle?.();
    this.bindings.delete(key);
    this.o.onEnded?.(id, reason);
  }

  /** The instance at `index` died: its sequences' state is gone. */
  instanceFailed(index: number, message: string): void {
    for (const [key, b] of this.bindings) {
      if (b.instance !== index) continue;
      b.cancelIdle?.();
      this.bindings.delete(key);
      this.lost.set(key, `the state of sequence ${String(b.id)} on model '${this.o.model}' was lost (${message}); restart the sequence with START`);
      this.o.onEnded?.(b.id, 'failed');
    }
  }

  private initial(): Record<string, Tensor> {
    return initialStates(this.o.config, this.o.readFile ?? (() => { throw new Error('initial_state data_file cannot be read'); }));
  }

  private bind(key: string, id: number | string): Binding {
    const load = new Array<number>(this.o.instances).fill(0);
    for (const x of this.bindings.values()) load[x.instance] = (load[x.instance] ?? 0) + 1;
    const instance = load.indexOf(Math.min(...load));
    const b: Binding = { id, instance, state: this.initial(), lastActiveMs: this.now(), chain: Promise.resolve() };
    this.bindings.set(key, b);
    this.o.onBound?.(id, this.o.instanceName(instance));
    return b;
  }

  private after(key: string, b: Binding, flags: SequenceFlags): void {
    b.lastActiveMs = this.now();
    if (this.bindings.get(key) !== b) return;
    if (flags.end) {
      this.bindings.delete(key);
      this.o.onEnded?.(b.id, 'end');
      return;
    }
    b.cancelIdle?.();
    b.cancelIdle = this.schedule(() => {
      if (this.bindings.get(key) !== b || this.now() - b.lastActiveMs < this.idleMs) return;
      this.bindings.delete(key);
      this.o.onEnded?.(b.id, 'idle');
    }, this.idleMs);
  }

  private async step(b: Binding, inputs: Record<string, Tensor>, flags: SequenceFlags, signal: AbortSignal | undefined, summarize: boolean): Promise<SequenceResult> {
    const batcher = this.batchers[b.instance];
    // Batched rows lose a worker's summaries when split: a watched run summarises its (small) rows itself.
    if (batcher) return batcher.enqueue({ b, inputs, flags }, signal);
    const feeds = { ...inputs, ...b.state, ...controlTensors(this.o.config, [flags]) };
    const r = await this.o.run(feeds, b.instance, signal, summarize);
    this.keepState(b, r.outputs);
    return { ...r, batchSize: 1 };
  }

  private keepState(b: Binding, outputs: Record<string, Tensor>): void {
    for (const { input, output } of stateNames(this.o.config)) {
      const next = outputs[output];
      if (!next) throw new EngineError('node-failed', `model '${this.o.model}' did not return its state output '${output}'`);
      b.state[input] = next;
    }
  }

  /** oldest: one batch of requests of different sequences on instance `i`. */
  private async runBatch(i: number, items: OldestItem[]): Promise<SequenceResult[]> {
    const rows = items.map((it) => firstDim(it.inputs));
    const feeds: Record<string, Tensor> = controlTensors(this.o.config, items.map((it) => it.flags));
    const names = new Set(items.flatMap((it) => [...Object.keys(it.inputs), ...Object.keys(it.b.state)]));
    for (const name of names) {
      const parts = items.map((it) => it.inputs[name] ?? it.b.state[name]);
      if (parts.some((p) => !p)) throw new EngineError('invalid-input', `input '${name}' is missing from a request to '${this.o.model}'`);
      const first = parts[0]!;
      if (!parts.every((p) => sameDims(p!.shape.slice(1), first.shape.slice(1)))) {
        throw new EngineError('invalid-input', `cannot batch '${name}' of model '${this.o.model}': state shapes differ between sequences`);
      }
      feeds[name] = concatBatch(parts as Tensor[]);
    }
    const r = await this.o.run(feeds, i, undefined, false);
    const split: Record<string, Tensor[]> = {};
    for (const [name, t] of Object.entries(r.outputs)) split[name] = splitBatch(t, rows);
    return items.map((it, k) => {
      const outputs = Object.fromEntries(Object.entries(split).map(([n, parts]) => [n, parts[k]!]));
      this.keepState(it.b, outputs);
      return { outputs, instance: r.instance, queueNs: r.queueNs, computeNs: r.computeNs, batchSize: items.length };
    });
  }
}

function firstDim(inputs: Record<string, Tensor>): number {
  const t = Object.values(inputs)[0];
  return t?.shape[0] ?? 1;
}
