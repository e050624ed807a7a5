// Which of a run's tensors are read by one consumer only: those may move to a worker instead of being copied.
import type { Tensor } from '@ensemble-studio/core';
import { isOwned } from './tensorTransfer.ts';

/**
 * Per tensor buffer, the consumers that still hold it. A consumer lets go when it hands the buffer to a worker
 * (`canTransfer`, asked once per input as the feed is moved or copied: the worker then reads its own copy) or
 * when it finishes (`release`), whichever comes first; the last holder of an engine-made buffer moves it.
 * @example
 * refs.add(crops, 2); // rec and cls read det's crops
 * refs.canTransfer(crops); // false: rec copies them, cls still holds them
 * refs.canTransfer(crops); // true: cls, the last holder, moves them
 */
export class TensorRefs {
  private readonly refs = new Map<object, number>();
  /**
   * Per buffer, hand-overs whose consumer has not finished yet. A consumer that finishes spends one of these
   * instead of letting go a second time; which consumer's it spends does not matter, since the count only
   * ever stays above the holders (never moving a buffer someone still reads) and ends exact.
   */
  private handedOver: Map<object, number> | undefined;

  /** `n` more consumers of `t`'s buffer (counted before any of them runs). */
  add(t: Tensor, n: number): void {
    this.refs.set(t.data, (this.refs.get(t.data) ?? 0) + n);
  }

  /** A node is done with its inputs. */
  release(inputs: Record<string, Tensor>): void {
    for (const port in inputs) {
      const data = inputs[port]!.data;
      const n = this.refs.get(data);
      if (n === undefined) continue;
      const h = this.handedOver?.get(data) ?? 0;
      if (h > 0) this.handedOver!.set(data, h - 1);
      else this.refs.set(data, n - 1);
    }
  }

  /** A consumer hands `t` to a worker now: whether it may move the buffer (the run's own, and no one else holds it). */
  canTransfer(t: Tensor): boolean {
    const n = this.refs.get(t.data);
    if (n === undefined) return false;
    this.refs.set(t.data, n - 1);
    this.handedOver ??= new Map();
    this.handedOver.set(t.data, (this.handedOver.get(t.data) ?? 0) + 1);
    return n === 1 && isOwned(t);
  }
}
