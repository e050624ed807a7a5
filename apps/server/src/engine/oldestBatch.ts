// `sequence_batching` with `oldest`: requests of different sequences on one instance run as one batch, their
// implicit state concatenated along dim 0 and the outputs split back per sequence.
import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import { EngineError } from './errors.ts';
import { controlTensors, type SequenceFlags } from './sequenceTensors.ts';
import type { Binding, InstanceRunner, SequenceResult } from './sequenceTypes.ts';
import { concatBatch, sameItemDims, splitBatch } from './batchTensors.ts';

/** One request waiting in an instance's `oldest` batcher. */
export interface OldestItem {
  b: Binding;
  inputs: Record<string, Tensor>;
  flags: SequenceFlags;
}

/** What a batch needs of its sequence batcher. */
export interface OldestContext {
  model: string;
  config: ModelConfig;
  /** The model's state tensors (input and output names). */
  states: readonly { input: string; output: string }[];
  run: InstanceRunner;
  /** Takes a sequence's next state from its outputs. */
  keepState: (b: Binding, outputs: Record<string, Tensor>) => void;
}

/** oldest: one batch of requests of different sequences on instance `i`. */
export async function runOldestBatch(ctx: OldestContext, i: number, items: OldestItem[]): Promise<SequenceResult[]> {
  const rows = items.map((it) => firstDim(it.inputs));
  const feeds: Record<string, Tensor> = controlTensors(
    ctx.config,
    items.map((it) => it.flags),
  );
  // What this batch built (control tensors, concatenations) moves to the worker; a lone part is a
  // request's own tensor or a view of an earlier batch's outputs, and is copied.
  const fresh = new Set(Object.values(feeds));
  // The requests of one batch share their input names (the batch key); every sequence holds the model's states.
  const names = new Set(Object.keys(items[0]!.inputs));
  for (const s of ctx.states) names.add(s.input);
  for (const name of names) {
    const parts: Tensor[] = [];
    for (const it of items) {
      const p = it.inputs[name] ?? it.b.state[name];
      if (!p) throw new EngineError('invalid-input', `input '${name}' is missing from a request to '${ctx.model}'`);
      if (!sameItemDims(p.shape, (parts[0] ?? p).shape))
        throw new EngineError(
          'invalid-input',
          `cannot batch '${name}' of model '${ctx.model}': state shapes differ between sequences`,
        );
      parts.push(p);
    }
    feeds[name] = concatBatch(parts);
    if (parts.length > 1) fresh.add(feeds[name]);
  }
  const r = await ctx.run(feeds, i, undefined, false, fresh, undefined, { requests: items.length });
  // Views into the batch's outputs, not copies: at 64 streams that is 128 fewer buffers per batch for the GC.
  const outNames = Object.keys(r.outputs);
  const split = outNames.map((name) => splitBatch(r.outputs[name]!, rows, 'view'));
  return items.map((it, k) => {
    const outputs: Record<string, Tensor> = {};
    for (let o = 0; o < outNames.length; o++) outputs[outNames[o]!] = split[o]![k]!;
    ctx.keepState(it.b, outputs);
    return { outputs, instance: r.instance, queueNs: r.queueNs, computeNs: r.computeNs, batchSize: items.length };
  });
}

/** Requests batch together when their inputs have the same names, dtypes and dims after the first. */
export function batchKey(inputs: Record<string, Tensor>): string {
  let key = '';
  for (const name in inputs) {
    const t = inputs[name]!;
    key += `${name}:${t.datatype}`;
    for (let d = 1; d < t.shape.length; d++) key += `x${t.shape[d]}`;
    key += '|';
  }
  return key;
}

function firstDim(inputs: Record<string, Tensor>): number {
  const t = Object.values(inputs)[0];
  return t?.shape[0] ?? 1;
}
