import { keyedRecord, ownValue, type CatalogueModel, type GraphDoc } from '@ensemble-studio/core';
import { modelFile } from './loadRepository.ts';
import type { Repository } from './types.ts';

/**
 * The repository to serve after a load of `models`: what `fresh` (the directory re-read) has for them (nothing
 * where it no longer has them), and what `served` had for every other model and graph, so a model whose files
 * changed keeps the config it runs with until it is loaded itself. A new directory on disk is served once loaded.
 * Problems are the re-read directory's: they describe the files as they are.
 * @example studio.repository = withReloaded(studio.repository, await loadRepository(dir), new Set(['det']))
 */
export function withReloaded(served: Repository, fresh: Repository, models: ReadonlySet<string>): Repository {
  const kept = keyedRecord<CatalogueModel>();
  const graphs = keyedRecord<GraphDoc>();
  const pick = <T>(into: Record<string, T>, from: Record<string, T>, name: string) => {
    const value = ownValue(from, name);
    if (value !== undefined) into[name] = value;
  };
  for (const name of unionOf(served.catalogue.models, fresh.catalogue.models))
    pick(kept, models.has(name) ? fresh.catalogue.models : served.catalogue.models, name);
  for (const name of unionOf(served.graphs, fresh.graphs))
    pick(graphs, models.has(name) ? fresh.graphs : served.graphs, name);
  const catalogue = { models: kept };
  return {
    dir: fresh.dir,
    catalogue,
    graphs,
    problems: fresh.problems,
    modelFile: (model, version) => modelFile(fresh.dir, catalogue, model, version),
  };
}

/** The keys of `a` and `b`, sorted (a repository lists its models in name order). */
function unionOf(a: object, b: object): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
}
