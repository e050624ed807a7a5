// The implicit state of the sequences bound to one model instance, kept in that instance's worker between
// requests: a batch brings slot numbers, not state tensors, and takes no state back to the main thread.
import type { Tensor } from '@ensemble-studio/core';
import type { HeldStates, StateSpec } from '../../sequenceTensors.ts';
import { concatBatch, copyData, sameItemDims, splitBatch } from '../../tensors.ts';

/**
 * Each sequence slot's current state tensors. `feeds` gathers a batch's state inputs (a slot's own tensor when
 * the batch has one request), `keep` stores each slot's next state from the batch's outputs. A run that fails
 * between the two leaves every slot's state as it was, as the main thread's copy did.
 */
export class SlotStates {
  private readonly slots = new Map<number, Record<string, Tensor>>();

  constructor(private readonly states: readonly StateSpec[]) {}

  /** Slots holding a state (for tests and diagnostics). */
  get size(): number {
    return this.slots.size;
  }

  /** Drops the released slots, then returns the batch's state inputs, rows in the order of `held.slots`. */
  feeds(held: HeldStates): Record<string, Tensor> {
    for (const slot of held.release) this.slots.delete(slot);
    const out: Record<string, Tensor> = {};
    for (const { input } of this.states) {
      const parts: Tensor[] = [];
      for (let k = 0; k < held.slots.length; k++) {
        const t = held.reset.includes(k) ? held.init?.[input] : this.slots.get(held.slots[k]!)?.[input];
        if (!t) throw new Error(`this instance holds no state '${input}' for sequence slot ${held.slots[k]}`);
        if (!sameItemDims(t.shape, (parts[0] ?? t).shape))
          throw new Error(`cannot batch state '${input}': state shapes differ between sequences`);
        parts.push(t);
      }
      out[input] = concatBatch(parts);
    }
    return out;
  }

  /**
   * Stores each slot's next state (views into the batch's state outputs; copies of an exposed one, whose buffer
   * goes to the main thread) and returns the outputs without the states the config does not list as outputs.
   */
  keep(held: HeldStates, outputs: Record<string, Tensor>): Record<string, Tensor> {
    const next: Record<string, Tensor>[] = held.slots.map(() => ({}));
    const rest = { ...outputs };
    for (const { input, output, exposed } of this.states) {
      const t = outputs[output];
      if (!t) throw new Error(`the model did not return its state output '${output}'`);
      const parts = held.slots.length === 1 ? [t] : splitBatch(t, held.rows, 'view');
      for (let k = 0; k < parts.length; k++) {
        const p = parts[k]!;
        next[k]![input] = exposed ? { ...p, data: copyData(p.data) } : p;
      }
      if (!exposed) delete rest[output];
    }
    for (let k = 0; k < held.slots.length; k++) this.slots.set(held.slots[k]!, next[k]!);
    return rest;
  }
}
