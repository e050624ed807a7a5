import type { Diagnostic } from '@ensemble-studio/core';
import { catalogueModel, ownValue } from '@ensemble-studio/core';
import type { Studio } from './Studio.ts';

/** Whether a model or saved graph can serve requests now, and if not, why (naming the model at fault). */
export interface Readiness {
  ready: boolean;
  reason?: string;
}

/** Why model `name` cannot run (its config, or its session in the engine), or undefined when it can. */
function modelProblem(studio: Studio, name: string): string | undefined {
  const m = catalogueModel(studio.catalogue, name);
  if (!m) return `model '${name}' is not in the repository`;
  if (m.error) return `model '${name}' failed to load: ${m.error}`;
  if (m.platform === 'ensemble') return undefined;
  const why = studio.engine.modelUnavailable(name);
  if (why === undefined) return undefined;
  return why.includes(`'${name}'`) ? why : `model '${name}' is unavailable: ${why}`;
}

/**
 * The one answer to "is it ready?" that the repository index, `/v2/models/{m}/ready`, model metadata
 * and `/api/health` all give: a model is ready when its config loaded and the engine loaded its
 * session; a saved graph when every model it runs is ready (the reason names the first that is not).
 * @example readiness(studio, 'ocr') // { ready: false, reason: "graph 'ocr' needs model 'det', which failed to load: …" }
 */
export function readiness(studio: Studio, name: string): Readiness {
  const graph = ownValue(studio.repository.graphs, name);
  if (graph) {
    for (const n of graph.nodes) {
      if (n.kind !== 'model') continue;
      const problem = modelProblem(studio, n.params.model);
      if (problem) return { ready: false, reason: `graph '${name}' cannot run: ${problem}` };
    }
    return { ready: true };
  }
  const problem = modelProblem(studio, name);
  return problem ? { ready: false, reason: problem } : { ready: true };
}

/**
 * Models whose config loaded but whose session the engine could not load (a corrupt ONNX file, say):
 * problems the repository scan cannot see, reported beside its own.
 * @example engineProblems(studio).map((d) => d.message) // ["det: model 'det' failed …"]
 */
export function engineProblems(studio: Studio): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const m of Object.values(studio.catalogue.models)) {
    if (m.error || m.platform === 'ensemble') continue;
    const problem = modelProblem(studio, m.name);
    if (problem) out.push({ code: 'model-unavailable', severity: 'error', message: `${m.name}: ${problem}` });
  }
  return out;
}
