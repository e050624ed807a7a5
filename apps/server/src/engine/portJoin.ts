// A node with several input ports runs once per iteration when every port has a tensor: the tensors wait here.
import type { Tensor } from '@ensemble-studio/core';

/** Inputs gathered per node and iteration until each of the node's ports has one. */
export class PortJoin {
  private readonly byNode = new Map<string, Map<number, Map<string, Tensor>>>();

  /** Holds `t` for `port`; returns the node's inputs of `iteration` once `ports` ports have one (held until `take`). */
  add(nodeId: string, iteration: number, port: string, t: Tensor, ports: number): Map<string, Tensor> | undefined {
    const byIter = this.byNode.get(nodeId) ?? new Map<number, Map<string, Tensor>>();
    this.byNode.set(nodeId, byIter);
    const got = byIter.get(iteration) ?? new Map<string, Tensor>();
    byIter.set(iteration, got);
    got.set(port, t);
    return got.size === ports ? got : undefined;
  }

  /** Some node waits here for a tensor on another port. */
  get holding(): boolean {
    for (const byIter of this.byNode.values()) if (byIter.size > 0) return true;
    return false;
  }

  /** Forgets the inputs of `iteration` (they were launched). */
  take(nodeId: string, iteration: number): void {
    this.byNode.get(nodeId)?.delete(iteration);
  }
}
