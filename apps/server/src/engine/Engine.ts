import { ResponseCache } from './responseCache.ts';
import { answerBls, type BlsDeps } from './bls.ts';
import { CustomMetrics } from './customMetrics.ts';
import { servingLoadConcurrency } from './eachAtMost.ts';
import { ExportedRuns } from './exportedRuns.ts';
import { Deadlines } from './cancel.ts';
import { EngineError, messageOf } from './errors.ts';
import { executeRun, type RunDeps } from './executeRun.ts';
import { GraphStats } from './graphStats.ts';
import type { EngineMetrics } from './Metrics.ts';
import { ModelRuntimes } from './ModelRuntimes.ts';
import type { RestartOutcome, SequenceEnded } from './modelRuntimeTypes.ts';
import { PreparedGraphs } from './PreparedGraphs.ts';
import { OpRunner } from './OpRunner.ts';
import { untilAborted } from './runCancel.ts';
import { RunFusion } from './runFusion.ts';
import { DecidedAhead } from './decidedAhead.ts';
import { cachedRun, failed, guarded } from './runMessages.ts';
import { RunCache } from './runCache.ts';
import { listSequences, modelCounters } from './runtimeViews.ts';
import type { Repository } from '../repo/types.ts';
import type { EngineHealth, EngineOptions, RunRequest, RunResult, SequenceInfo } from './types.ts';

type SequenceEndedListener = (ended: SequenceEnded) => void;

/**
 * Runs graphs with Triton's semantics on onnxruntime-node and python3. `create` loads and warms
 * every ONNX model of the repository (or, with `lazy`, each on first use); a model that fails to
 * load is listed 'unavailable' and runs that need it fail with 'model-unavailable'.
 * @example const engine = await Engine.create({ repository }); const r = await engine.run({ graph, inputs: { image } });
 */
export class Engine {
  private readonly models: ModelRuntimes;
  private readonly graphStats = new GraphStats();
  /** What Python models report with `pb_utils.MetricFamily` (published on /metrics). */
  private readonly customMetrics = new CustomMetrics();
  /** The repository served (a model's `reload` brings a re-read one). */
  private repository: Repository;
  private readonly graphs: PreparedGraphs;
  private readonly blsDeps: BlsDeps;
  private exportedRuns: ExportedRuns | undefined;
  private readonly ops: OpRunner;
  private readonly runDeps: RunDeps;
  private readonly deadlines = new Deadlines();
  private activeRuns = 0;
  /** Called when `activeRuns` falls to 0 (`closeWhenIdle`). */
  private idleWaiters: (() => void)[] = [];
  private runCounter = 0;
  private closed = false;
  private readonly sequenceEndedListeners = new Set<SequenceEndedListener>();
  /** Ensembles' top-level response cache (`RunRequest.cache`), over the same cache as the models'. */
  private readonly runCache: RunCache | undefined;

  private constructor(private readonly opts: EngineOptions) {
    this.repository = opts.repository;
    const responseCache = opts.responseCache ? new ResponseCache(opts.responseCache.sizeBytes) : undefined;
    this.runCache = responseCache && new RunCache(responseCache, this.graphStats);
    this.ops = new OpRunner(opts.repository.dir, opts.opWorkers ?? 2);
    this.blsDeps = {
      repository: opts.repository,
      run: (req) => this.run(req),
      instancesOf: (m) => this.models.instancesOf(m),
      modelGraphs: new Map(),
    };
    this.graphs = new PreparedGraphs(
      (node) => this.models.get(node.params.model, node.params.settings),
      opts.fuseOps !== false,
    );
    this.models = new ModelRuntimes({
      opts,
      repository: () => this.repository,
      onReplaced: () => {
        this.graphs.reset();
        this.runCache?.reset();
      },
      bls: (call, sink) => answerBls(this.blsDeps, call, sink),
      metrics: this.customMetrics,
      ...(responseCache ? { responseCache } : {}),
      onSequenceEnded: (ended) => {
        for (const listener of this.sequenceEndedListeners) listener(ended);
      },
    });
    this.runDeps = {
      opts,
      graphs: this.graphs,
      ops: this.ops,
      runFusion: new RunFusion(this.ops.placer),
      ahead: new DecidedAhead(),
      deadlines: this.deadlines,
      graphStats: this.graphStats,
    };
  }

  /**
   * Creates an engine; resolves once every model has loaded (or failed) unless `lazy`. Never throws for one bad model.
   * `signal` (a server stopped while it starts) closes it at once, ending the loads under way (a stub in `initialize`
   * is killed), and rejects with `closed` once it is closed.
   */
  static async create(opts: EngineOptions, signal?: AbortSignal): Promise<Engine> {
    const engine = new Engine(opts);
    const models = Object.keys(opts.repository.catalogue.models);
    // A session's creation cannot be cut short: on `signal` the engine closes without waiting for the loads to end.
    if (!opts.lazy && !signal?.aborted)
      await untilAborted(
        Promise.all([engine.ops.start(), engine.models.loadAll(models, opts.loadConcurrency)]),
        signal,
      );
    if (signal?.aborted) {
      await engine.close();
      throw new EngineError('closed', 'the server was stopped while it started');
    }
    return engine;
  }

  /**
   * Triton's repository "load" of `models`: serves `repository` (the same directory, re-read) from now on and
   * starts `models` again from it. Each model's old runtime serves until its new one has loaded, then finishes the
   * runs that hold it and closes; every other model keeps its workers, its python processes and its sequences, and
   * loads of other models go on beside this one. A model whose new runtime fails keeps its old one if it had one.
   * Resolves once every model has loaded, failed or been aborted (`unloadModel`), with how each ended.
   */
  async reload(repository: Repository, models: Iterable<string>): Promise<Map<string, RestartOutcome>> {
    this.repository = this.blsDeps.repository = repository;
    this.blsDeps.modelGraphs.clear();
    this.graphs.reset();
    const exported = this.exportedRuns;
    this.exportedRuns = undefined;
    void exported?.close().catch(() => undefined);
    return this.models.restart([...new Set(models)], servingLoadConcurrency());
  }

  /**
   * Triton's repository "unload" of `model`: a load of it that a `reload` has under way ends (its new instances
   * close: a Python model stuck in `initialize` is killed; its `reload` resolves naming it), and its runtimes retire:
   * the runs already holding them finish, then they close (a Python model's `finalize` runs and its process exits;
   * an ONNX model's sessions and workers are released). Runs needing it fail as unavailable until a `reload` starts
   * it again. Unloading an ensemble leaves its composing models as they are. The graphs' exported repositories
   * unload it too (a generated helper model lives only there; a repository model is linked in as well).
   */
  unloadModel(model: string): void {
    this.models.unload(model);
    this.exportedRuns?.unloadModel(model);
  }

  /** Whether a `reload` is loading `model` now. */
  modelLoading(model: string): boolean {
    return this.models.isStarting(model);
  }

  /** Runs a graph; never rejects for run errors (status 'failed' with a code and a message). */
  async run(req: RunRequest): Promise<RunResult> {
    if (req.exported) return this.runExported(req);
    const runId = req.runId ?? `run-${++this.runCounter}`;
    const emit = req.onEvent ? guarded(req.onEvent) : ignore;
    // Every run announces itself first, so a client can tie even an immediate failure to its request.
    if (req.onEvent)
      emit({ type: 'run.started', runId, graph: req.graph.name, nodes: req.graph.nodes.map((n) => n.id) });
    if (this.closed) return failed(runId, emit, 'closed', 'the engine is shutting down');
    const limit = this.opts.maxConcurrentRuns ?? 64;
    if (this.activeRuns >= limit)
      return failed(
        runId,
        emit,
        'limit',
        `the engine is already running ${limit} runs (maxConcurrentRuns); try again when one finishes`,
      );
    this.activeRuns++;
    const t0 = performance.now();
    let status: RunResult['status'] | 'threw' = 'threw';
    let errorCode: string | undefined;
    try {
      const cached = req.cache ? this.runCache?.answer(req) : undefined;
      if (cached?.hit) {
        status = 'completed';
        return cachedRun(runId, cached.hit, emit);
      }
      const result = await executeRun(this.runDeps, runId, req, emit, this.activeRuns === 1);
      status = result.status;
      errorCode = result.error?.code;
      if (cached && result.status === 'completed') cached.store(result.outputs);
      return result;
    } catch (err) {
      return failed(runId, emit, err instanceof EngineError ? err.code : 'node-failed', messageOf(err));
    } finally {
      this.graphStats.record(req.graph.name, status, performance.now() - t0, errorCode);
      if (--this.activeRuns === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /** A run of the graph's exported repository (exportedRuns.ts), made on first use. */
  private async runExported(req: RunRequest): Promise<RunResult> {
    const { repository: _, ...rest } = this.opts;
    this.exportedRuns ??= new ExportedRuns(this.repository, (options) => Engine.create(options), rest);
    try {
      return await this.exportedRuns.run({ ...req, exported: false });
    } catch (err) {
      const runId = req.runId ?? `run-${++this.runCounter}`;
      return failed(
        runId,
        req.onEvent ? guarded(req.onEvent) : ignore,
        err instanceof EngineError ? err.code : 'node-failed',
        messageOf(err),
      );
    }
  }

  /**
   * Why model `name`'s sessions cannot run (the engine failed to load it), or undefined when they can, are still
   * loading, or the engine does not know it. Readiness asks this on every request, so unlike `health()` it builds
   * nothing: its cost does not grow with the models or the open sequences.
   */
  modelUnavailable(name: string): string | undefined {
    return this.models.unavailableReason(name);
  }

  /** Models, execution providers, notices, active runs and sequences (for /api/health). */
  health(): EngineHealth {
    const { models, inUse, notices, available } = this.models.health();
    return {
      executionProviders: { available, inUse },
      notices,
      models,
      activeRuns: this.activeRuns,
      activeSequences: this.sequences().filter((s) => s.instance !== null).length,
    };
  }

  /**
   * Ends a sequence now on every model that holds it (a stream closed without a final chunk, or its
   * client went away), freeing its slot and state instead of waiting for the idle timeout.
   */
  endSequence(id: number | string): void {
    for (const [, rt] of this.models.all()) rt.sequences?.release(id, 'end');
  }

  /**
   * Calls `listener` whenever a model ends a sequence: END processed, `endSequence`, the model's
   * idle timeout (`reason: 'idle'`) or its instance failing. Returns the function that stops it.
   * @example const stop = engine.onSequenceEnded((e) => { if (e.reason === 'idle') forget(e.sequenceId); });
   */
  onSequenceEnded(listener: SequenceEndedListener): () => void {
    this.sequenceEndedListeners.add(listener);
    return () => this.sequenceEndedListeners.delete(listener);
  }

  /** Which instance holds each active sequence (`instance: null` while it waits in the backlog for a slot). */
  sequences(): SequenceInfo[] {
    return listSequences(this.models.all());
  }

  /** Counters per model and per graph (Prometheus /metrics). */
  metrics(): EngineMetrics {
    return {
      models: modelCounters(this.models.all()),
      graphs: this.graphStats.all(),
      custom: this.customMetrics.snapshot(),
    };
  }

  /** Fault injection: crashes instance `index` of a model (tests; operators checking recovery). */
  async crashInstance(model: string, index: number): Promise<void> {
    (await this.models.get(model, undefined)).pool.crashInstance(index);
  }

  /**
   * `close` once the runs under way have finished (an engine replaced by another repository's lets its clients'
   * runs complete), or after the default run time limit if one never does.
   */
  async closeWhenIdle(): Promise<void> {
    if (this.activeRuns > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.idleWaiters.push(resolve);
        timer = setTimeout(resolve, this.opts.defaultTimeoutMs || 60_000);
        timer.unref();
      });
      clearTimeout(timer);
    }
    return this.close();
  }

  /** Stops accepting runs, fails what is queued, terminates every worker. */
  async close(): Promise<void> {
    this.closed = true;
    this.deadlines.clear();
    await Promise.all([this.ops.close(), this.exportedRuns?.close(), this.models.close()]);
  }
}

const ignore = (): void => {};
