import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ownValue } from '@ensemble-studio/core';
import type { Repository } from './types.ts';

/**
 * What each model of `repo` is made of, as one string per model: its catalogue entry (the parsed config,
 * versions, error) and the name, size and modification time of every file in its model directory and
 * its latest version directory. Two stamps differ when a load must restart the model, as Triton's
 * repository poll decides by modification times.
 */
export async function modelStamps(repo: Repository): Promise<Map<string, string>> {
  const entries = Object.entries(repo.catalogue.models);
  const stamps = await Promise.all(
    entries.map(async ([name, model]) => {
      const dir = join(repo.dir, name);
      const latest = model.versions.at(-1);
      const files = await Promise.all([filesOf(dir), latest === undefined ? '' : filesOf(join(dir, String(latest)))]);
      return `${JSON.stringify(model)}\n${files.join('\n')}`;
    }),
  );
  return new Map(entries.map(([name], k) => [name, stamps[k]!]));
}

/**
 * The models a load of `name` (re)starts, as Triton's explicit load picks them: `name` itself, and when `repo` (the
 * re-read repository) has it as a graph or ensemble, its composing models, recursively, that changed on disk
 * (their stamp in `after` is not the one in `before`, or they appeared or went away) or that are not served now
 * (`served` says). Any other model whose files changed stays as it is until it is loaded itself.
 * @example modelsToLoad('ocr', repo, before, after, (m) => !unloaded.has(m)) // Set { 'ocr', 'det' } when det's files changed
 */
export function modelsToLoad(
  name: string,
  repo: Repository,
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  served: (model: string) => boolean,
): Set<string> {
  const out = new Set([name]);
  const seen = new Set<string>();
  const visit = (graphName: string) => {
    if (seen.has(graphName)) return;
    seen.add(graphName);
    const graph = ownValue(repo.graphs, graphName);
    for (const node of graph?.nodes ?? []) {
      if (node.kind !== 'model') continue;
      const m = node.params.model;
      if (before.get(m) !== after.get(m) || !served(m)) out.add(m);
      visit(m);
    }
  };
  visit(name);
  return out;
}

/** `before` with the stamps of `models` taken from `after` (removed where `after` has none). */
export function withStamps(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
  models: Iterable<string>,
): Map<string, string> {
  const out = new Map(before);
  for (const m of models) {
    const stamp = after.get(m);
    if (stamp === undefined) out.delete(m);
    else out.set(m, stamp);
  }
  return out;
}

/** `dir`'s plain files as `name size mtime` lines, sorted; '' when it cannot be read. */
async function filesOf(dir: string): Promise<string> {
  try {
    const names = (await readdir(dir)).sort();
    const stats = await Promise.all(names.map((n) => stat(join(dir, n)).catch(() => undefined)));
    return names.map((n, k) => (stats[k]?.isFile() ? `${n} ${stats[k].size} ${stats[k].mtimeMs}` : '')).join('\n');
  } catch {
    return '';
  }
}
