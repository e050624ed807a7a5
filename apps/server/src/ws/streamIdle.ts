import { catalogueModel, schedulingOf, type Catalogue, type GraphDoc } from '@ensemble-studio/core';

/** Triton's `max_sequence_idle_microseconds` when a config leaves it unset (or 0). */
const DEFAULT_IDLE_MICROSECONDS = 1_000_000;

/** How long a stream may wait for its first chunk, and the model whose idle timeout that is. */
export interface StreamIdle {
  microseconds: number;
  /** The sequence-batched model with the shortest idle timeout; undefined when the graph has none. */
  model: string | undefined;
}

/**
 * The idle timeout of a stream over `graph`: the shortest `max_sequence_idle_microseconds` of its
 * sequence-batched models (node settings applied), which is when the engine would end the stream's sequence had it
 * been fed; Triton's default of one second when no model of the graph keeps sequences.
 * @example streamIdle(resolvedAccGraph, catalogue) // { microseconds: 5000000, model: 'acc' }
 */
export function streamIdle(graph: GraphDoc, catalogue: Catalogue): StreamIdle {
  let best: StreamIdle = { microseconds: Infinity, model: undefined };
  for (const node of graph.nodes) {
    if (node.kind !== 'model') continue;
    const model = catalogueModel(catalogue, node.params.model);
    if (!model) continue;
    const sequence = schedulingOf(model.config, node.params.settings).sequenceBatching;
    if (!sequence) continue;
    const microseconds = Number(sequence.max_sequence_idle_microseconds) || DEFAULT_IDLE_MICROSECONDS;
    if (microseconds < best.microseconds) best = { microseconds, model: model.name };
  }
  return best.model === undefined ? { microseconds: DEFAULT_IDLE_MICROSECONDS, model: undefined } : best;
}
