import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Diagnostic, GraphDoc } from '@ensemble-studio/core';
import {
  catalogueModel,
  catalogueModelFromConfig,
  compileGraph,
  normalizeConfig,
  ownValue,
  parsePbtxt,
} from '@ensemble-studio/core';
import type { Repository } from './types.ts';
import { commitFiles } from './commitFiles.ts';
import { PathError, isSafeName, safeJoin } from './safeJoin.ts';

/** Why a graph cannot be saved under its name (the name belongs to a model that is not a graph). */
export class GraphNameError extends Error {
  readonly code = 'name-taken';
}

export interface SaveResult {
  /** True when the graph compiled and `<name>/config.pbtxt` was (re)written. */
  configWritten: boolean;
  diagnostics: Diagnostic[];
}

/** The save or delete running for each graph, so two never interleave on the same files. */
const graphLocks = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` after every earlier save or delete of graph `name` in repository `dir` (and every earlier `fn` given
 * for it) has finished, and before any later one starts: what `fn` reads of the graph's files is never half-written.
 * @example const fresh = await withGraphFiles(repo.dir, 'ocr', () => loadRepository(repo.dir));
 */
export function withGraphFiles<T>(dir: string, name: string, fn: () => Promise<T>): Promise<T> {
  const key = `${dir}\0${name}`;
  const run = (graphLocks.get(key) ?? Promise.resolve()).catch(() => undefined).then(fn);
  graphLocks.set(key, run);
  void run
    .catch(() => undefined)
    .finally(() => {
      if (graphLocks.get(key) === run) graphLocks.delete(key);
    });
  return run;
}

/** Graph names are single safe path segments that do not shadow a plain model. */
function checkName(repo: Repository, name: string): void {
  if (!isSafeName(name)) throw new PathError(`graph name "${String(name)}" is not a valid model name`);
  const existing = catalogueModel(repo.catalogue, name);
  if (existing && existing.platform !== 'ensemble' && !ownValue(repo.graphs, name)) {
    throw new GraphNameError(
      `"${name}" is a ${existing.platform || existing.backend} model of the repository, not a graph`,
    );
  }
}

/**
 * Saves a graph as its ensemble directory: `<name>/studio.json` always, `<name>/config.pbtxt` when the
 * graph compiles (the previous config is kept otherwise), and the empty version dir `<name>/1/`.
 * Both files are written as one commit (`commitFiles`), and saves and deletes of one graph run one
 * after another. Updates `repo.graphs` and the ensemble's catalogue entry.
 * @example const { configWritten } = await saveGraph(repo, graph)
 */
export async function saveGraph(repo: Repository | (() => Repository), graph: GraphDoc): Promise<SaveResult> {
  const current = typeof repo === 'function' ? repo : () => repo;
  checkName(current(), graph.name);
  // The repository served when the save runs: a load may have replaced the one served when it was asked for.
  return withGraphFiles(current().dir, graph.name, () => saveUnlocked(current(), graph));
}

async function saveUnlocked(repo: Repository, graph: GraphDoc): Promise<SaveResult> {
  checkName(repo, graph.name);
  const dir = safeJoin(repo.dir, graph.name);
  await mkdir(join(dir, '1'), { recursive: true });
  const compiled = compileGraph(graph, repo.catalogue);
  const configText = compiled.files.find((f) => f.path === `${graph.name}/config.pbtxt`)?.text;
  const configWritten = compiled.ok && configText !== undefined;
  // studio.json and config.pbtxt are committed together: a crash never leaves one from another save.
  await commitFiles(dir, {
    'studio.json': `${JSON.stringify(graph, null, 2)}\n`,
    ...(configWritten ? { 'config.pbtxt': configText } : {}),
  });
  if (configWritten) {
    const parsed = parsePbtxt(configText);
    if (parsed.ok) {
      const config = normalizeConfig(parsed.config, { dirName: graph.name });
      repo.catalogue.models[graph.name] = catalogueModelFromConfig(graph.name, config, [1]);
    }
  }
  repo.graphs[graph.name] = graph;
  return { configWritten, diagnostics: compiled.diagnostics };
}

/**
 * Deletes a saved graph: its `studio.json`, its ensemble `config.pbtxt`, and the version/graph
 * directories when they are left empty (other files a user put there are kept).
 * @returns false when there is no such graph.
 * @example await deleteGraph(repo, 'ocr')
 */
export async function deleteGraph(repo: Repository | (() => Repository), name: string): Promise<boolean> {
  if (!isSafeName(name)) return false;
  const current = typeof repo === 'function' ? repo : () => repo;
  return withGraphFiles(current().dir, name, () => deleteUnlocked(current(), name));
}

async function deleteUnlocked(repo: Repository, name: string): Promise<boolean> {
  const dir = safeJoin(repo.dir, name);
  // A saved graph that did not load (listed as a failed ensemble) can still be deleted.
  const listed = catalogueModel(repo.catalogue, name);
  const failed = listed?.platform === 'ensemble' && listed.error !== undefined && existsSync(join(dir, 'studio.json'));
  if (!ownValue(repo.graphs, name) && !failed) return false;
  await rm(join(dir, 'studio.json'), { force: true });
  const ensemble = catalogueModel(repo.catalogue, name)?.platform === 'ensemble';
  if (ensemble) await rm(join(dir, 'config.pbtxt'), { force: true });
  for (const d of [join(dir, '1'), dir]) await removeIfEmpty(d);
  delete repo.graphs[name];
  if (ensemble) delete repo.catalogue.models[name];
  return true;
}

async function removeIfEmpty(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const left = (await readdir(dir)).filter((f) => f !== '.gitkeep');
  if (left.length > 0) return;
  await rm(join(dir, '.gitkeep'), { force: true });
  await rmdir(dir);
}
