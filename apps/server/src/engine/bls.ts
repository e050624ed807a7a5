import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import type { Repository } from '../repo/types.ts';
import type { BlsCall, BlsSink } from './backends/python/pythonTypes.ts';
import { logRequest } from './logRequest.ts';
import type { RunRequest, RunResult } from './types.ts';

/** What answering a BLS call needs of the engine. */
export interface BlsDeps {
  repository: Repository;
  run(req: RunRequest): Promise<RunResult>;
  /** Instances of a loaded model (undefined when it is not loaded). */
  instancesOf(model: string): number | undefined;
  /** Graphs of single models, made once per model (the engine remembers its work per graph document). */
  modelGraphs: Map<string, GraphDoc>;
}

/**
 * Answers `pb_utils.InferenceRequest(...).exec()` / `async_exec()` from a Python model: runs the named
 * model, saved graph or ensemble of the repository through the engine, and sends back its response
 * (or, with `decoupled=True`, every response and then the final flag). Failures come back as the
 * response's error, as Triton returns them, never as an exception in the engine.
 * @example answerBls(deps, { model: 'add_sub', inputs, decoupled: false, … }, sink)
 */
export function answerBls(deps: BlsDeps, call: BlsCall, sink: BlsSink): void {
  const graph = graphFor(deps, call.model);
  if (typeof graph === 'string') return sink.end(graph);
  if (call.model === call.caller.model && deps.instancesOf(call.model) === 1) {
    return sink.end(
      `model '${call.model}' calls itself through BLS but has one instance, which is busy running the caller: the call would wait forever (give it more instances with instance_group count)`,
    );
  }
  const refused = tritonRefusal(deps, call, graph);
  if (refused) return sink.end(refused);
  const wanted = call.requestedOutputs.length > 0 ? new Set(call.requestedOutputs) : undefined;
  const pick = (outputs: Record<string, Tensor>) =>
    wanted ? Object.fromEntries(Object.entries(outputs).filter(([n]) => wanted.has(n))) : outputs;
  const sequence =
    call.correlationId !== 0 && call.correlationId !== ''
      ? { id: call.correlationId, start: (call.flags & 1) !== 0, end: (call.flags & 2) !== 0 }
      : undefined;
  let streamed = 0;
  deps
    .run({
      graph,
      inputs: call.inputs,
      signal: call.signal,
      ...(sequence ? { sequence } : {}),
      ...(wanted ? { requestedOutputs: call.requestedOutputs } : {}),
      ...(call.requestId ? { requestId: call.requestId } : {}),
      ...(call.timeoutUs > 0 ? { timeoutMs: Math.max(1, Math.ceil(call.timeoutUs / 1000)) } : {}),
      ...(call.decoupled
        ? {
            // The last call may only say that nothing follows (no outputs), or carry the last response.
            onResponse: (outputs: Record<string, Tensor>, final: boolean) => {
              if (!final || Object.keys(outputs).length > 0) {
                streamed++;
                sink.response(pick(outputs));
              }
            },
          }
        : {}),
    })
    .then(
      (r) => {
        if (r.status === 'failed') return sink.end(r.error?.message ?? 'the call failed');
        if (r.status === 'exited_early' && r.exit?.strategy === 'error')
          return sink.end(r.exit.message ?? `pipeline ended early: ${r.exit.expression}`);
        if (!call.decoupled) sink.response(pick(r.outputs));
        else if (streamed === 0 && r.status === 'completed' && Object.keys(r.outputs).length > 0)
          sink.response(pick(r.outputs));
        sink.end();
      },
      (err: unknown) => sink.end(err instanceof Error ? err.message : String(err)),
    );
}

/** The graph a BLS call runs: a saved graph or ensemble by that name, else the model alone; or why there is none. */
function graphFor(deps: BlsDeps, name: string): GraphDoc | string {
  const graphs = deps.repository.graphs;
  if (Object.hasOwn(graphs, name)) return graphs[name]!;
  const models = deps.repository.catalogue.models;
  const m = Object.hasOwn(models, name) ? models[name] : undefined;
  if (!m || m.platform === 'ensemble') return `Failed for execute the inference request. Model '${name}' is not ready.`;
  if (m.error) return `Failed for execute the inference request. Model '${name}' is not ready: ${m.error}`;
  let g = deps.modelGraphs.get(name);
  if (!g) deps.modelGraphs.set(name, (g = singleModelGraph(m)));
  return g;
}

/**
 * What Triton refuses in a request before running it: a version the model lacks, an output it does not make, an input
 * of another data type.
 */
function tritonRefusal(deps: BlsDeps, call: BlsCall, graph: GraphDoc): string | undefined {
  const name = call.model;
  // -1 asks for the latest version; a saved graph or an ensemble serves version 1.
  const versions = Object.hasOwn(deps.repository.graphs, name) ? [1] : deps.repository.catalogue.models[name]!.versions;
  if (call.version !== -1 && !versions.includes(call.version))
    return `Request for unknown model: '${name}' version ${call.version} is not found`;
  const outputs = new Set(graph.nodes.flatMap((n) => (n.kind === 'output' ? [n.params.name] : [])));
  const unknown = call.requestedOutputs.find((o) => !outputs.has(o));
  if (unknown !== undefined) return `unexpected inference output '${unknown}' for model '${name}'`;
  return wrongDataType(call, graph);
}

/** Triton core's `Normalize` refusal of an input whose data type is not the model's (or the ensemble's). */
function wrongDataType(call: BlsCall, graph: GraphDoc): string | undefined {
  for (const n of graph.nodes) {
    if (n.kind !== 'input' || !Object.hasOwn(call.inputs, n.params.name)) continue;
    const got = call.inputs[n.params.name]!.datatype;
    if (got !== n.params.datatype)
      return `${logRequest(call.requestId || undefined)}inference input '${n.params.name}' data-type is '${got}', but model '${call.model}' expects '${n.params.datatype}'`;
  }
  return undefined;
}
