// Which of a run's tensors are read by one consumer only: those may move to a worker instead of being copied.
import type { Tensor } from '@ensemble-studio/core';
import { isOwned } from './tensorTransfer.ts';

/** Per tensor buffer, the consumers that have yet to take it. */
export class TensorRefs {
  private readonly refs = new Map<object, number>();

  /** `n` more consumers of `t`'s buffer (counted before any of them runs). */
  add(t: Tensor, n: number): void {
    this.refs.set(t.data, (this.refs.get(t.data) ?? 0) + n);
  }

  /** A node is done with its inputs. */
  release(inputs: Record<string, Tensor>): void {
    for (const t of Object.values(inputs)) {
      const n = this.refs.get(t.data);
      if (n !== undefined) this.refs.set(t.data, n - 1);
    }
  }

  /** Whether a tensor may move to a worker: its buffer is the run's own and only one consumer holds it. */
  readonly canTransfer = (t: Tensor): boolean => isOwned(t) && this.refs.get(t.data) === 1;
}
