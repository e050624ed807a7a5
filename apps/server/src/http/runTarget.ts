import type { GraphDoc } from '@ensemble-studio/core';
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
  /** Fields of the engine's run request beyond graph and inputs: a helper model runs in its graph's exported repository. */
  run: Pick<RunRequest, 'exported' | 'exportedModel'>;
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
  return {
    graph,
    decoupled: graphIsDecoupled(graph, studio.catalogue),
    stateful: graphIsStateful(graph, studio.catalogue),
    run: {},
    plainModel: studio.plainModelOf(graph),
  };
}
