import { catalogueModel, ownValue } from '@ensemble-studio/core';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isSafeName } from '../repo/safeJoin.ts';
import { ApiError } from './errors.ts';
import { findHelper, graphHelpers } from './helperModels.ts';
import type { Studio } from './Studio.ts';

/** True when a client unloaded model `name` and has not loaded it since. */
export function isUnloaded(studio: Studio, name: string): boolean {
  return studio.unloadedModels.has(name);
}

/** True when the open repository serves `name`: a model, a saved graph, or a helper model a graph generates. */
function repositoryHas(studio: Studio, name: string): boolean {
  return (
    catalogueModel(studio.catalogue, name) !== undefined ||
    ownValue(studio.repository.graphs, name) !== undefined ||
    findHelper(studio, name) !== undefined
  );
}

/**
 * Why saved graph `name` cannot run because a client unloaded a model it needs (one of its models
 * or one of the helper models generated for its steps), or undefined.
 * @example unloadedDependency(studio, 'ocr') // "model 'det' is unloaded"
 */
export function unloadedDependency(studio: Studio, name: string): string | undefined {
  const set = studio.unloadedModels;
  const graph = ownValue(studio.repository.graphs, name);
  if (set.size === 0 || !graph) return undefined;
  for (const n of graph.nodes)
    if (n.kind === 'model' && set.has(n.params.model)) return `model '${n.params.model}' is unloaded`;
  for (const h of graphHelpers(studio, graph)) if (set.has(h.name)) return `model '${h.name}' is unloaded`;
  return undefined;
}

/**
 * Triton's repository "unload": the model stops being served (not ready, UNAVAILABLE "unloaded" in the
 * repository index, inference refused as for an unknown model) until it is loaded again, and the engine retires its
 * instances: the runs already on them finish, then they close (a Python model's `finalize` runs and its stub exits).
 * As in Triton, a load of it asked before ends first (the unload waits for it; the load answers as it would alone),
 * and one asked after waits for the unload. With `dependents` (Triton's `unload_dependents`), the composing models
 * an ensemble's load brought and nothing else uses go with it (`dependentsToUnload`). Answers without waiting for
 * the runs, as Triton's unload does.
 * @throws ApiError 404 when the repository has no such model.
 */
export async function unloadModel(studio: Studio, name: string, dependents = false): Promise<void> {
  if (!repositoryHas(studio, name))
    throw new ApiError(
      404,
      'not-found',
      `failed to unload '${name}': the repository has no model or saved graph '${name}'`,
    );
  await studio.loads.unload(name, dependents);
}

/**
 * Triton's repository "load": re-reads the repository from disk (the model's edited config and files, or
 * the graph's studio.json), restarts `name` (for a graph or ensemble, with its composing models that changed or
 * are not served: `ModelLoads`), and serves again each model it loaded that was unloaded. Other models whose files changed
 * stay as they are until they are loaded themselves.
 * @throws ApiError 404 when the re-read repository has no such model; what `ModelLoads.load` throws.
 */
export async function loadModel(studio: Studio, name: string): Promise<void> {
  const notFound = () =>
    new ApiError(
      404,
      'not-found',
      `failed to load '${name}', failed to poll from model repository: it has no model or saved graph '${name}'`,
    );
  // A name that is neither served now nor a directory on disk is refused without re-reading the repository.
  if (!repositoryHas(studio, name) && !(isSafeName(name) && existsSync(join(studio.repository.dir, name))))
    throw notFound();
  await studio.loads.load(name);
  if (!repositoryHas(studio, name)) throw notFound();
}
