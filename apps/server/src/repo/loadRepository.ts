import { existsSync, statSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Catalogue, CatalogueModel, Diagnostic, GraphDoc, ModelConfig } from '@ensemble-studio/core';
import {
  catalogueModel,
  catalogueModelFromConfig,
  graphFromEnsemble,
  keyedRecord,
  migrate,
  normalizeConfig,
  validateModelConfig,
} from '@ensemble-studio/core';
import type { Repository } from './types.ts';
import { recoverCommits } from './commitFiles.ts';
import { parseConfigBytes } from './configParser.ts';
import { configFromOnnx, readOnnxSignature } from './onnxSignature.ts';
import { autoCompletePython, definesAutoComplete, pythonInterpreter } from '../engine/backends/python/autoComplete.ts';

/** What one model directory holds on disk. */
interface ModelDir {
  name: string;
  dir: string;
  versions: number[];
  files: string[];
  hasConfig: boolean;
  hasStudio: boolean;
}

/** Numeric version directories (Triton ignores names starting with '0'), ascending. */
async function listVersions(dir: string): Promise<number[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => e.isDirectory() && /^[1-9][0-9]*$/.test(e.name))
    .map((e) => Number(e.name))
    .sort((a, b) => a - b);
}

async function scanModelDir(root: string, name: string): Promise<ModelDir> {
  const dir = join(root, name);
  const versions = await listVersions(dir);
  const latest = versions.at(-1);
  const files =
    latest === undefined ? [] : (await readdir(join(dir, String(latest)))).filter((f) => !f.startsWith('.'));
  return {
    name,
    dir,
    versions,
    files,
    hasConfig: existsSync(join(dir, 'config.pbtxt')),
    hasStudio: existsSync(join(dir, 'studio.json')),
  };
}

/** A catalogue entry for a model that could not be loaded: listed, with the reason, unavailable. */
function brokenModel(name: string, versions: number[], error: string): CatalogueModel {
  return {
    name,
    versions,
    platform: '',
    backend: '',
    maxBatchSize: 0,
    inputs: [],
    outputs: [],
    decoupled: false,
    config: { name },
    error,
  };
}

// A large config is parsed in a worker (configParser.ts), but still whole and at about 0.2–0.3 µs a byte (more for many
// small tokens): ten megabytes of one string or of 200,000 parameters took seconds. Real configs are a few KiB.
const MAX_CONFIG_BYTES = 1 << 20;

async function readModelConfig(m: ModelDir): Promise<ModelConfig> {
  if (m.hasConfig) {
    const file = join(m.dir, 'config.pbtxt');
    const size = (await stat(file)).size;
    if (size > MAX_CONFIG_BYTES)
      throw new Error(`config.pbtxt is ${size} bytes, over the limit of ${MAX_CONFIG_BYTES} for a model's config`);
    const parsed = await parseConfigBytes(await readFile(file));
    if (!parsed.ok) {
      const e = parsed.error;
      throw new Error(`config.pbtxt:${e.line}:${e.column}: ${e.message}`);
    }
    return parsed.config;
  }
  const latest = m.versions.at(-1);
  if (latest !== undefined && m.files.includes('model.onnx')) {
    return configFromOnnx(m.name, await readOnnxSignature(onnxPath(join(m.dir, String(latest), 'model.onnx'))));
  }
  // A Python model may leave its config to `auto_complete_config` (Triton's auto-complete).
  if (latest !== undefined && m.files.includes('model.py')) return { name: m.name, backend: 'python' };
  throw new Error('no config.pbtxt, and no model.onnx or model.py to derive one from');
}

/** ONNX models may be a file or a directory `model.onnx/` holding `model.onnx`. */
function onnxPath(p: string): string {
  return existsSync(p) && statSync(p).isDirectory() ? join(p, 'model.onnx') : p;
}

/** Fills inputs/outputs of an ONNX config that declares none, as Triton's auto-complete does. */
async function autoComplete(m: ModelDir, config: ModelConfig): Promise<ModelConfig> {
  const latest = m.versions.at(-1);
  if (config.backend === 'python' && latest !== undefined) {
    const file = join(m.dir, String(latest), config.default_model_filename ?? 'model.py');
    return definesAutoComplete(file) ? autoCompletePython(pythonInterpreter(), file, config) : config;
  }
  const file = config.default_model_filename ?? 'model.onnx';
  const onnx = config.platform === 'onnxruntime_onnx' || config.backend === 'onnxruntime';
  if (!onnx || latest === undefined || !m.files.includes(file)) return config;
  if ((config.input?.length ?? 0) > 0 && (config.output?.length ?? 0) > 0) return config;
  const derived = configFromOnnx(m.name, await readOnnxSignature(onnxPath(join(m.dir, String(latest), file))));
  return {
    ...config,
    input: config.input?.length ? config.input : derived.input,
    output: config.output?.length ? config.output : derived.output,
  };
}

/** Missing model file for a non-ensemble model: the catalogue says so instead of failing later. */
function missingFile(m: ModelDir, model: CatalogueModel): string | undefined {
  // No version directory at all is the config rules' no-version-to-serve, reported with the config's other problems.
  if (model.platform === 'ensemble' || m.versions.length === 0) return undefined;
  const expected =
    model.config.default_model_filename ??
    (model.backend === 'python'
      ? 'model.py'
      : model.platform === 'onnxruntime_onnx' || model.backend === 'onnxruntime'
        ? 'model.onnx'
        : undefined);
  if (expected && !m.files.includes(expected)) return `version ${m.versions.at(-1)} has no ${expected}`;
  return undefined;
}

async function loadModel(m: ModelDir): Promise<CatalogueModel> {
  try {
    const raw = await autoComplete(m, await readModelConfig(m));
    const config = normalizeConfig(raw, { dirName: m.name, files: m.files });
    // Triton refuses to load a model whose config names another (two directories could serve one name).
    const misnamed = validateModelConfig(config, { dirName: m.name, versions: m.versions }).find(
      (d) => d.code === 'name-mismatch',
    );
    if (misnamed) return brokenModel(m.name, m.versions, misnamed.message);
    const model = catalogueModelFromConfig(m.name, config, m.versions);
    const missing = missingFile(m, model);
    return missing ? { ...model, error: missing } : model;
  } catch (err) {
    return brokenModel(m.name, m.versions, err instanceof Error ? err.message : String(err));
  }
}

// A saved graph arrives in an /api body of at most 4 MiB (`maxApiBodyBytes`) and is written indented; one much larger
// was not saved by the studio, and parsing it (on the main thread, at every repository read) held every client.
const MAX_GRAPH_FILE_BYTES = 8 << 20;

async function loadStudioGraph(m: ModelDir): Promise<GraphDoc> {
  const file = join(m.dir, 'studio.json');
  const size = (await stat(file)).size;
  if (size > MAX_GRAPH_FILE_BYTES)
    throw new Error(`studio.json is ${size} bytes, over the limit of ${MAX_GRAPH_FILE_BYTES} for a saved graph`);
  const text = await readFile(file, 'utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`studio.json is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const migrated = migrate(doc);
  if (!migrated.ok) throw new Error(`studio.json: ${migrated.error}`);
  return { ...migrated.graph, name: m.name };
}

async function loadGraphs(
  dirs: ModelDir[],
  catalogue: Catalogue,
  problems: Diagnostic[],
): Promise<Record<string, GraphDoc>> {
  const graphs = keyedRecord<GraphDoc>();
  for (const m of dirs) {
    try {
      if (m.hasStudio) graphs[m.name] = await loadStudioGraph(m);
      else if (
        catalogueModel(catalogue, m.name)?.platform === 'ensemble' &&
        !catalogueModel(catalogue, m.name)?.error
      ) {
        const imported = graphFromEnsemble(m.name, catalogue);
        graphs[m.name] = imported.graph;
        problems.push(
          ...imported.diagnostics
            .filter((d) => d.severity === 'error')
            .map((d) => ({ ...d, message: `${m.name}: ${d.message}` })),
        );
      }
    } catch (err) {
      const why = (err as Error).message;
      problems.push({ code: 'graph-load', severity: 'error', message: `${m.name}: ${why}` });
      // Listed as an ensemble that failed to load, so every place that asks for it says why (a model that
      // fails does the same), and a save or delete of the graph by that name is still allowed.
      const compiled = catalogueModel(catalogue, m.name);
      catalogue.models[m.name] = {
        ...(compiled ?? brokenModel(m.name, m.versions, why)),
        platform: 'ensemble',
        error: why,
      };
    }
  }
  return graphs;
}

/**
 * Opens a Triton model repository (a directory per model): every `<model>/config.pbtxt` (parsed leniently so unknown
 * fields survive, then auto-completed), ONNX models without config (signature from onnxruntime),
 * `<ensemble>/studio.json` graphs and ensembles without one (imported). A bad model becomes a catalogue
 * entry with `error` and a problem; loading never throws for the repository's content.
 * @throws only when `dir` itself is not a readable directory.
 * @example const repo = await loadRepository('examples/model_repository'); Object.keys(repo.catalogue.models)
 */
export async function loadRepository(dir: string): Promise<Repository> {
  const root = resolve(dir);
  const entries = await readdir(root, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  const problems: Diagnostic[] = [];
  for (const n of names) {
    for (const note of await recoverCommits(join(root, n)).catch((err: Error) => [
      `could not finish an interrupted save: ${err.message}`,
    ])) {
      problems.push({ code: 'save-recovered', severity: 'warning', message: `${n}: ${note}` });
    }
  }
  const dirs = await Promise.all(names.map((n) => scanModelDir(root, n)));
  const catalogue: Catalogue = { models: keyedRecord<CatalogueModel>() };
  for (const m of dirs) {
    if (!m.hasConfig && m.hasStudio) continue; // a draft graph that never compiled: a graph, not a model
    if (!m.hasConfig && m.versions.length === 0) continue; // not a model directory
    const model = await loadModel(m);
    catalogue.models[m.name] = model;
    if (model.error) problems.push({ code: 'model-load', severity: 'error', message: `${m.name}: ${model.error}` });
  }
  const graphs = await loadGraphs(dirs, catalogue, problems);
  return {
    dir: root,
    catalogue,
    graphs,
    problems,
    modelFile: (model, version) => modelFile(root, catalogue, model, version),
  };
}

/**
 * Absolute path of the file of `catalogue`'s model `model` in the repository at `root`, for a version (default:
 * latest); undefined when there is none.
 * @example modelFile('/repo', repo.catalogue, 'det') // '/repo/det/1/model.onnx'
 */
export function modelFile(root: string, catalogue: Catalogue, model: string, version?: number): string | undefined {
  const m = catalogueModel(catalogue, model);
  if (!m || m.platform === 'ensemble') return undefined;
  const v = version ?? m.versions.at(-1);
  if (v === undefined || !m.versions.includes(v)) return undefined;
  const name = m.config.default_model_filename ?? (m.backend === 'python' ? 'model.py' : 'model.onnx');
  const p = join(root, model, String(v), name);
  if (!existsSync(p)) return undefined;
  return name.endsWith('.onnx') ? onnxPath(p) : p;
}
