import { TRACE_DEFAULTS } from '../trace/traceConfig.ts';
import { TraceSettings } from '../trace/traceSettings.ts';
import type { Catalogue, CatalogueModel, GraphDoc, ModelConfig } from '@ensemble-studio/core';
import { catalogueModel, migrate, ownValue, singleModelGraph } from '@ensemble-studio/core';
import { realpath, stat } from 'node:fs/promises';
import type { Engine } from '../engine/index.ts';
import { isInside } from '../repo/safeJoin.ts';
import type { Repository } from '../repo/types.ts';
import { BodyParser } from './bodyParser.ts';
import { ApiError } from './errors.ts';
import { SharedMemoryRegions } from './sharedMemory.ts';
import { LogSettings } from './logSettings.ts';
import { DEFAULT_LIMITS, limitMessage, type Limits } from './limits.ts';
import { ModelLoads, readRepository } from './ModelLoads.ts';
import { RunSlots, type ReleaseRun } from './runSlots.ts';

/** What the HTTP and WebSocket layers need from the engine. */
export type StudioEngine = Pick<
  Engine,
  | 'run'
  | 'health'
  | 'modelUnavailable'
  | 'sequences'
  | 'metrics'
  | 'close'
  | 'closeWhenIdle'
  | 'endSequence'
  | 'onSequenceEnded'
  | 'reload'
  | 'unloadModel'
  | 'modelLoading'
>;

export interface StudioOptions {
  repository: Repository;
  engine: StudioEngine;
  limits?: Partial<Limits>;
  /** Required from clients when set (HTTP bearer, WS subprotocol or query). */
  token?: string;
  /** Builds an engine for another repository (`/api/import`); without it import is refused. */
  createEngine?: (repository: Repository) => Promise<StudioEngine>;
  /**
   * Directories under which `/api/import` may open a repository (resolved through symlinks); none by
   * default, so a client cannot make the server read, or later write, a directory nobody allowed.
   */
  importRoots?: readonly string[];
  version?: string;
  /** Lets clients register system shared memory regions (Triton's `--allow-client-shm`); off by default. */
  allowClientShm?: boolean;
  /** The server log's settings (Triton's logging extension); Triton's defaults when not given. */
  logSettings?: LogSettings;
  /** The trace settings (Triton's trace extension, `--trace-config`); tracing off when not given. */
  traces?: TraceSettings;
}

/** The helper models a saved graph's compilation generates (`graphHelpers`), and the catalogue it compiled against. */
export interface CompiledHelpers {
  catalogue: Catalogue;
  helpers: { name: string; graph: GraphDoc; model: CatalogueModel }[];
}

/**
 * The state the HTTP app and the WebSocket share: the open repository and its engine (swapped
 * together by `openRepository`), the limits, the token and the count of runs in flight.
 */
export class Studio {
  repository: Repository;
  engine: StudioEngine;
  readonly limits: Limits;
  readonly token: string | undefined;
  readonly version: string;
  /** Parses KServe bodies, large ones off the main thread. */
  readonly bodies = new BodyParser();
  /** The system shared memory regions clients registered (HTTP and gRPC share them). */
  readonly sharedMemory: SharedMemoryRegions;
  /** What the server log shows of the models' lines (`/v2/logging`, gRPC `LogSettings`). */
  readonly logSettings: LogSettings;
  /** Which requests are traced, and their trace files (`/v2/trace/setting`, gRPC `TraceSetting`). */
  readonly traces: TraceSettings;
  private readonly createEngine: StudioOptions['createEngine'];
  /** The one-model graph of each catalogue model (a reloaded repository brings new models, so new graphs). */
  private readonly modelGraphs = new WeakMap<object, GraphDoc>();
  /**
   * Models a client unloaded through Triton's repository extension: the one set HTTP and gRPC read. A
   * reloaded repository keeps it (an unloaded model stays unloaded until it is loaded).
   */
  readonly unloadedModels = new Set<string>();
  /** What compiling each saved graph document generated (helperModels.ts fills it; a reload brings new documents). */
  readonly compiledHelpers = new WeakMap<GraphDoc, CompiledHelpers>();
  /** Each saved graph document's effective config, or why it has none, per catalogue (servedModels.ts fills it). */
  readonly graphConfigs = new WeakMap<GraphDoc, { catalogue: Catalogue; result: ModelConfig | ApiError }>();
  private readonly importRoots: readonly string[];
  /** Whether another repository is being opened (`openRepository`): one at a time, and no load meanwhile. */
  importing = false;
  /** Triton's repository loads of single models (modelLoading.ts). */
  readonly loads: ModelLoads;
  private readonly runSlots: RunSlots;
  private openStreams = 0;

  constructor(opts: StudioOptions) {
    this.repository = opts.repository;
    this.engine = opts.engine;
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.runSlots = new RunSlots(this.limits);
    this.token = opts.token;
    this.version = opts.version ?? '0.1.0';
    this.createEngine = opts.createEngine;
    this.importRoots = opts.importRoots ?? [];
    this.loads = new ModelLoads(this);
    this.sharedMemory = new SharedMemoryRegions(opts.allowClientShm === true);
    this.logSettings = opts.logSettings ?? new LogSettings();
    this.traces = opts.traces ?? new TraceSettings(TRACE_DEFAULTS);
  }

  get catalogue(): Catalogue {
    return this.repository.catalogue;
  }

  /** Takes one of `maxConcurrentRuns` now or refuses (runSlots.ts); returns the release function (idempotent). */
  acquireRun(): ReleaseRun {
    return this.runSlots.take();
  }

  /** Waits in turn for one of `maxConcurrentRuns`, up to `maxQueuedRuns` waiting (runSlots.ts). */
  waitForRun(signal?: AbortSignal): Promise<ReleaseRun> {
    return this.runSlots.wait(signal);
  }

  /** Reserves one of `maxOpenSequences`; returns the release function (idempotent). */
  acquireStream(): () => void {
    if (this.openStreams >= this.limits.maxOpenSequences) {
      throw new ApiError(
        503,
        'limit',
        limitMessage('too many open sequences', 'maxOpenSequences', this.limits.maxOpenSequences),
      );
    }
    this.openStreams++;
    let released = false;
    return () => {
      if (!released) this.openStreams--;
      released = true;
    };
  }

  get runsInFlight(): number {
    return this.runSlots.inFlight;
  }

  /** KServe runs waiting for one of `maxConcurrentRuns`. */
  get runsWaiting(): number {
    return this.runSlots.waitingCount;
  }

  /**
   * The graph a request names: a saved graph, a plain model of the catalogue (as a one-model graph),
   * or an inline document (migrated). Throws ApiError 404/400 naming the problem.
   */
  resolveGraph(ref: unknown): GraphDoc {
    return this.checkGraphLimits(this.findGraph(ref));
  }

  /**
   * Refuses a graph whose size would let one request stall the server or multiply its response: more
   * than `maxGraphNodes` nodes or `maxGraphEdges` edges, a router with more than `maxRouterOutputs`
   * outputs. Returns the graph.
   * @throws ApiError 400 `limit` naming the node and the limit.
   */
  checkGraphLimits(graph: GraphDoc): GraphDoc {
    const { maxGraphNodes, maxGraphEdges } = this.limits;
    const shown = graph.name.slice(0, 128);
    if (graph.nodes.length > maxGraphNodes)
      throw new ApiError(
        400,
        'limit',
        limitMessage(`graph '${shown}' has ${graph.nodes.length} nodes`, 'maxGraphNodes', maxGraphNodes),
      );
    if (graph.edges.length > maxGraphEdges)
      throw new ApiError(
        400,
        'limit',
        limitMessage(`graph '${shown}' has ${graph.edges.length} edges`, 'maxGraphEdges', maxGraphEdges),
      );
    const max = this.limits.maxRouterOutputs;
    for (const n of graph.nodes) {
      if (n.kind === 'router' && n.params.count > max) {
        throw new ApiError(
          400,
          'limit',
          limitMessage(
            `router '${n.id.slice(0, 128)}' of graph '${graph.name.slice(0, 128)}' has ${n.params.count} outputs`,
            'maxRouterOutputs',
            max,
          ),
        );
      }
    }
    return graph;
  }

  /** The name of the repository model `graph` is the one-model graph of, or undefined for any other graph. */
  plainModelOf(graph: GraphDoc): string | undefined {
    const model = catalogueModel(this.catalogue, graph.name);
    return model && this.modelGraphs.get(model) === graph ? model.name : undefined;
  }

  private findGraph(ref: unknown): GraphDoc {
    if (typeof ref === 'string') {
      const saved = ownValue(this.repository.graphs, ref);
      if (saved) return saved;
      const model = catalogueModel(this.catalogue, ref);
      if (model && model.platform !== 'ensemble') {
        if (model.error) throw new ApiError(503, 'unavailable', `model "${ref}" is not available: ${model.error}`);
        // One document per catalogue model: the engine keeps a graph's index and plans per document, and
        // building both anew for every KServe request is a measurable share of a small model's request
        // (bench/README.md).
        let graph = this.modelGraphs.get(model);
        if (!graph) this.modelGraphs.set(model, (graph = singleModelGraph(model)));
        return graph;
      }
      throw new ApiError(404, 'unknown-graph', `unknown graph or model "${ref.slice(0, 128)}"`);
    }
    const migrated = migrate(ref);
    if (!migrated.ok) throw new ApiError(400, 'bad-graph', `graph document: ${migrated.error}`);
    return migrated.graph;
  }

  /**
   * Opens another repository directory and swaps it in with a fresh engine; the old engine is closed
   * once its runs finish. The old repository keeps serving if the new one cannot be opened.
   */
  async openRepository(dir: string): Promise<Repository> {
    return this.swapRepository(dir, () => this.allowedRepositoryDir(dir));
  }

  private async swapRepository(dir: string, resolveDir: () => Promise<string>): Promise<Repository> {
    const createEngine = this.createEngine;
    if (!createEngine) throw new ApiError(501, 'unsupported', 'this server cannot open another repository');
    return this.oneAtATime(async () => {
      const repo = await readRepository(await resolveDir(), dir);
      const engine = await createEngine(repo);
      const old = this.engine;
      this.repository = repo;
      this.engine = engine;
      this.loads.reset(repo);
      void old.closeWhenIdle().catch(() => undefined);
      return repo;
    });
  }

  /** Runs `change` unless another repository open is under way. */
  private async oneAtATime<T>(change: () => Promise<T>): Promise<T> {
    if (this.importing)
      throw new ApiError(409, 'busy', 'another repository is being opened; try again when it is done');
    this.importing = true;
    try {
      return await change();
    } finally {
      this.importing = false;
    }
  }

  /** The real path of `dir` when it is a directory inside one of the import roots; ApiError otherwise. */
  private async allowedRepositoryDir(dir: string): Promise<string> {
    const shown = dir.slice(0, 256);
    if (this.importRoots.length === 0) {
      throw new ApiError(
        403,
        'import-not-allowed',
        'this server opens no other repository: start it with --import-root DIR to allow repositories under DIR',
      );
    }
    let real: string;
    try {
      real = await realpath(dir);
      if (!(await stat(real)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    } catch (err) {
      throw new ApiError(
        400,
        'bad-repository',
        `cannot open repository "${shown}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      );
    }
    const roots = await Promise.all(this.importRoots.map((r) => realpath(r).catch(() => undefined)));
    if (!roots.some((r) => r !== undefined && isInside(r, real))) {
      throw new ApiError(
        403,
        'import-not-allowed',
        `"${shown}" is not under an allowed import root (${this.importRoots.join(', ')})`,
      );
    }
    return real;
  }
}
