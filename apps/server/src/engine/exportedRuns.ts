import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Catalogue, GraphDoc } from '@ensemble-studio/core';
import { catalogueModel, compileGraph, graphFromEnsemble, singleModelGraph } from '@ensemble-studio/core';
import { loadRepository } from '../repo/loadRepository.ts';
import { safeJoin } from '../repo/safeJoin.ts';
import type { Repository } from '../repo/types.ts';
import { EngineError, messageOf } from './errors.ts';
import type { EngineOptions, RunRequest, RunResult } from './types.ts';

/** What runs an exported repository: an Engine (passed in by the engine itself, so the two modules do not import each other). */
export interface ExportedEngine {
  run(req: RunRequest): Promise<RunResult>;
  unloadModel(model: string): void;
  close(): Promise<void>;
}

/** Makes the engine over an exported repository, e.g. `(options) => Engine.create(options)`. */
export type CreateExportedEngine = (options: EngineOptions) => Promise<ExportedEngine>;

/** An exported graph ready to run: its repository on disk and an engine over it; one-model graphs of its models as they are asked for. */
interface Exported {
  dir: string;
  engine: ExportedEngine;
  graph: GraphDoc;
  catalogue: Catalogue;
  modelGraphs: Map<string, GraphDoc>;
}

/** Exported graphs kept ready (each holds its models' processes); the least recently used one goes first. */
const KEEP = 4;

/** Scratch repositories not yet removed: a process that exits without `close` (Ctrl-C, a crash) still removes them. */
const LIVE_DIRS = new Set<string>();
process.once('exit', () => {
  for (const d of LIVE_DIRS) rmSync(d, { recursive: true, force: true });
});

/**
 * Runs graphs *as exported*: the graph is compiled to a Triton repository (config.pbtxt files and the
 * generated model.py of its routers, gates, ops or BLS model), written to a scratch directory (model
 * files linked, not copied), and run by an engine over that repository, so every generated model runs
 * as the Python model Triton will run. A graph is exported once and kept while it is among the KEEP
 * most recently run; `close` removes everything.
 * @example const r = await exported.run({ graph, inputs }); // same RunResult as Engine.run
 */
export class ExportedRuns {
  /** By the graph document's JSON (the editor sends a fresh copy of an unsaved graph with every run). */
  private byGraph = new Map<string, Promise<Exported>>();
  private closed = false;

  constructor(
    private readonly source: Repository,
    private readonly createEngine: CreateExportedEngine,
    private readonly options: Omit<EngineOptions, 'repository'> = {},
  ) {}

  /**
   * Runs the exported form of `req.graph` (or, with `req.exportedModel`, that one model of it); a graph
   * that does not compile fails the run with why.
   */
  async run(req: RunRequest): Promise<RunResult> {
    if (req.exportedModel !== undefined) return this.runModel(req.graph, req.exportedModel, req);
    const e = await this.exported(req.graph);
    return e.engine.run({ ...req, graph: e.graph });
  }

  /**
   * Runs one model of `graph`'s exported repository on its own (a generated helper model's model.py,
   * say), with `req`'s inputs, sequence and signal; the graph is exported once as for `run`.
   * @throws EngineError 'invalid-graph' when the exported repository has no model `modelName`
   * @example await exported.runModel(ocr, 'ocr_has_text', { graph: ocr, inputs: { boxes } })
   */
  async runModel(graph: GraphDoc, modelName: string, req: RunRequest): Promise<RunResult> {
    const e = await this.exported(graph);
    let modelGraph = e.modelGraphs.get(modelName);
    if (!modelGraph) {
      const model = catalogueModel(e.catalogue, modelName);
      if (!model) throw new EngineError('invalid-graph', `graph '${graph.name}' exports no model '${modelName}'`);
      e.modelGraphs.set(modelName, (modelGraph = singleModelGraph(model)));
    }
    const { exportedModel: _, ...rest } = req;
    return e.engine.run({ ...rest, graph: modelGraph });
  }

  /** The graph that runs for `graph`: its ensemble's steps as plain models (generated ones included). */
  async graphFor(graph: GraphDoc): Promise<GraphDoc> {
    return (await this.exported(graph)).graph;
  }

  private exported(graph: GraphDoc): Promise<Exported> {
    if (this.closed) return Promise.reject(new EngineError('closed', 'the engine is shutting down'));
    const key = JSON.stringify(graph);
    let p = this.byGraph.get(key);
    if (p) {
      this.byGraph.delete(key); // re-inserted below: most recently used last
    } else {
      p = this.export(graph);
      p.catch(() => this.byGraph.delete(key));
    }
    this.byGraph.set(key, p);
    for (const [k, old] of this.byGraph) {
      if (this.byGraph.size <= KEEP) break;
      this.byGraph.delete(k);
      void old.then(dispose, () => undefined);
    }
    return p;
  }

  private async export(graph: GraphDoc): Promise<Exported> {
    const compiled = compileGraph(graph, this.source.catalogue);
    if (!compiled.ok) {
      const first = compiled.diagnostics.find((d) => d.severity === 'error');
      throw new EngineError(
        'invalid-graph',
        `graph '${graph.name}' does not export: ${first?.message ?? 'it does not compile'}`,
      );
    }
    const dir = mkdtempSync(join(tmpdir(), 'studio-exported-'));
    LIVE_DIRS.add(dir);
    try {
      for (const f of compiled.files) {
        const dest = safeJoin(dir, f.path);
        mkdirSync(f.text === undefined && f.copyFrom === undefined ? dest : dirname(dest), { recursive: true });
        if (f.text !== undefined) writeFileSync(dest, f.text);
        else if (f.copyFrom !== undefined) symlinkSync(safeJoin(this.source.dir, f.copyFrom), dest);
      }
      const repo = await loadRepository(dir);
      const engine = await this.createEngine({ ...this.options, repository: repo, lazy: true });
      return {
        dir,
        engine,
        graph: exportedGraph(graph.name, repo.catalogue),
        catalogue: repo.catalogue,
        modelGraphs: new Map(),
      };
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      LIVE_DIRS.delete(dir);
      throw err instanceof EngineError
        ? err
        : new EngineError('invalid-graph', `graph '${graph.name}' could not be exported for a run: ${messageOf(err)}`);
    }
  }

  /**
   * Triton's unload of `model` in every exported repository that holds it (a graph's generated helper, or a
   * repository model its export links): there its instances retire as in the engine that serves the repository
   * (the runs on them finish, then a Python model's stub exits), including in an export still being made.
   */
  unloadModel(model: string): void {
    for (const p of this.byGraph.values())
      void p.then(
        (e) => {
          if (catalogueModel(e.catalogue, model)) e.engine.unloadModel(model);
        },
        () => undefined,
      );
  }

  /** Stops every exported engine and removes their repositories. */
  async close(): Promise<void> {
    this.closed = true;
    const settled = await Promise.allSettled(this.byGraph.values());
    this.byGraph.clear();
    await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? dispose(s.value) : undefined)));
  }
}

async function dispose(e: Exported): Promise<void> {
  await e.engine.close();
  rmSync(e.dir, { recursive: true, force: true });
  LIVE_DIRS.delete(e.dir);
}

/** The graph of an exported repository's top model: its ensemble with every step a plain model, or the BLS model alone. */
function exportedGraph(name: string, catalogue: Catalogue): GraphDoc {
  const top = catalogueModel(catalogue, name);
  if (!top) throw new EngineError('invalid-graph', `the exported repository has no model '${name}'`);
  if (top.platform !== 'ensemble') return singleModelGraph(top);
  const imported = graphFromEnsemble(name, catalogue, { plainSteps: true });
  const error = imported.diagnostics.find((d) => d.severity === 'error');
  if (error)
    throw new EngineError('invalid-graph', `the exported ensemble '${name}' does not import: ${error.message}`);
  return imported.graph;
}
