import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { GraphDoc } from '@ensemble-studio/core';
import { migrate, singleModelGraph } from '@ensemble-studio/core';
import type { Repository } from '../repo/types.ts';
import { userPath } from './args.ts';
import { CliError } from './errors.ts';

/** True when a command's target names a graph file rather than a name in the repository. */
export function isGraphFile(target: string): boolean {
  return target.endsWith('.json') || (existsSync(userPath(target)) && statSync(userPath(target)).isFile());
}

/**
 * Reads a GRAPH.json (migrated) as a GraphDoc.
 * @throws CliError naming the file and the problem.
 */
export async function readGraphFile(target: string): Promise<GraphDoc> {
  const path = userPath(target);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${target} is not JSON: ${(err as Error).message}`);
  }
  const migrated = migrate(doc);
  if (!migrated.ok) throw new CliError(`${target}: ${migrated.error}`);
  return migrated.graph;
}

/**
 * The graph a command names: a GRAPH.json file, a saved graph, or a plain model (as a one-model graph).
 * @throws CliError when nothing by that name exists.
 */
export async function resolveTarget(repo: Repository, target: string, allowModel = true): Promise<GraphDoc> {
  if (isGraphFile(target)) return readGraphFile(target);
  const graph = repo.graphs[target];
  if (graph) return graph;
  const model = repo.catalogue.models[target];
  if (model && allowModel && model.platform !== 'ensemble') {
    if (model.error) throw new CliError(`model ${target} is not available: ${model.error}`);
    return singleModelGraph(model);
  }
  const known = Object.keys(repo.graphs).sort().join(', ') || 'none';
  throw new CliError(`no graph named "${target}" in ${repo.dir} (graphs: ${known})`);
}
