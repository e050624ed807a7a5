import { catalogueModel, type GraphDoc } from '@ensemble-studio/core';
import type { RunRequest } from '../engine/types.ts';
import { graphIsDecoupled, graphIsStateful } from './graphSignature.ts';
import type { ServedModel } from './servedModels.ts';
import type { Studio } from './Studio.ts';

/** What the engine runs for a served model, and how a client must call it. */
export interface RunTarget {
  graph: GraphDoc;
  /** Its responses need streaming (a decoupled model, or a graph with a decoupled step or a gate). */
  decoupled: boolean;
  /** Requests must carry sequence parameters. */
  stateful: boolean;
  /**
   * Fields of the engine's run request beyond graph and inputs: a helper model runs in its graph's exported repository;
   * an ensemble whose config enables `response_cache` is looked up in the server's cache first.
   */
  run: Pick<RunRequest, 'exported' | 'exportedModel' | 'cache'>;
  /** The model's name when the graph is a repository model run on its own (its errors are that model's). */
  plainModel: string | undefined;
}

/**
 * The run behind a KServe request (HTTP and gRPC): a saved graph, a repository model as a one-model
 * graph, or a helper model a saved graph generates, run as exported (its generated model.py in python3).
 * @example const t = runTarget(studio, served); await studio.engine.run({ graph: t.graph, inputs, ...t.run })
 */
export function runTarget(studio: Studio, served: ServedModel): RunTarget {
  if (served.helper) {
    const { graph, model } = served.helper;
    return {
      graph,
      decoupled: model.decoupled,
      stateful: model.config.sequence_batching !== undefined,
      run: { exported: true, exportedModel: model.name },
      plainModel: undefined,
    };
  }
  const graph = studio.checkGraphLimits(served.graph ?? studio.resolveGraph(served.name));
  const decoupled = graphIsDecoupled(graph, studio.catalogue);
  const stateful = graphIsStateful(graph, studio.catalogue);
  const plainModel = studio.plainModelOf(graph);
  // A repository model's own cache is its runtime's (ModelRuntime); an ensemble's is the run's, as Triton's.
  const cache =
    !plainModel &&
    !decoupled &&
    !stateful &&
    catalogueModel(studio.catalogue, served.name)?.config.response_cache?.enable === true;
  return { graph, decoupled, stateful, run: cache ? { cache } : {}, plainModel };
}
