import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { listSupportedBackends } from 'onnxruntime-node';
import {
  applySettings,
  catalogueModel,
  type GraphDoc,
  type ModelNode,
  type ServerMessage,
  type Tensor,
} from '@ensemble-studio/core';
import { answerBls, type BlsDeps } from './bls.ts';
import { eachAtMost } from './eachAtMost.ts';
import { ExportedRuns } from './exportedRuns.ts';
import { Deadlines, RunCancel } from './cancel.ts';
import { EngineError, messageOf } from './errors.ts';
import { checkInputs } from './inputs.ts';
import { emptyGraphMetrics, type EngineMetrics, type GraphMetrics } from './Metrics.ts';
import { ModelRuntime } from './ModelRuntime.ts';
import { instanceCount } from './modelSetup.ts';
import { planFusion, type FusedGroup } from './fusion.ts';
import { indexGraph, memoByGraph, peekByGraph, type GraphIndex, type GraphMemo } from './graphIndex.ts';
import { createExecutor, type ExecutorDeps } from './nodeExecutor.ts';
import { OpRunner } from './OpRunner.ts';
import { RunFusion } from './runFusion.ts';
import { Scheduler } from './Scheduler.ts';
import type { SchedulerOptions, SchedulerResult } from './schedulerTypes.ts';
import { wireOnRead } from './wireOnRead.ts';
import type { Repository } from '../repo/types.ts';
import type { EngineHealth, EngineOptions, RunRequest, RunResult, SequenceInfo } from './types.ts';

/** A sequence a model ended, and why. */
export interface SequenceEnded {
  model: string;
  sequenceId: number | string;
  reason: 'end' | 'idle' | 'failed' | 'cancelled';
  /** The model's max_sequence_idle_microseconds (what `reason: 'idle'` waited). */
  idleMicroseconds: number;
}
type SequenceEndedListener = (ended: SequenceEnded) => void;

/** What a run of a graph needs from the engine, worked out on its first run. */
interface Prepared {
  byNode: Map<string, ModelRuntime>;
  runtimes: ModelRuntime[];
  /** A model of the graph that needs sequence flags. */
  stateful: ModelRuntime | undefined;
  /** Whether Triton would make the graph's ensemble decoupled (a decoupled model or a gate). */
  decoupled: boolean;
  groups: Map<string, FusedGroup> | undefined;
  /** The graph indexed once for every run of it (the scheduler copies what a run changes). */
  index: GraphIndex;
}

/**
 * Runs graphs with Triton's semantics on onnxruntime-node and python3. `create` loads and warms
 * every ONNX model of the repository (or, with `lazy`, each on first use); a model that fails to
 * load is listed 'unavailable' and runs that need it fail with 'model-unavailable'.
 * @example const engine = await Engine.create({ repository }); const r = await engine.run({ graph, inputs: { image } });
 */
export class Engine {
  private runtimes = new Map<string, Promise<ModelRuntime>>();
  private loaded = new Map<string, ModelRuntime>();
  /** Runtimes a reload replaced, closed once their runs finish (`retire`). */
  private readonly retiring = new Set<ModelRuntime>();
  private unavailable = new Map<string, string>();
  private graphStats = new Map<string, GraphMetrics>();
  /** The repository served (a model's `reload` brings a re-read one). */
  private repository: Repository;
  private prepared: GraphMemo<Promise<Prepared>> = new WeakMap();
  /** The same, once resolved. */
  private ready: GraphMemo<Prepared> = new WeakMap();
  private readonly blsDeps: BlsDeps;
  private exportedRuns: ExportedRuns | undefined;
  private readonly ops: OpRunner;
  /** Which planned fused groups each run fuses, from measured costs (placement.ts). */
  private readonly runFusion: RunFusion;
  private readonly deadlines = new Deadlines();
  private activeRuns = 0;
  /** Called when `activeRuns` falls to 0 (`closeWhenIdle`). */
  private idleWaiters: (() => void)[] = [];
  private runCounter = 0;
  private closed = false;
  private readonly sequenceEndedListeners = new Set<SequenceEndedListener>();

  private constructor(private readonly opts: EngineOptions) {
    this.repository = opts.repository;
    this.ops = new OpRunner(opts.repository.dir, opts.opWorkers ?? 2);
    this.runFusion = new RunFusion(this.ops.placer);
    this.blsDeps = {
      repository: opts.repository,
      run: (req) => this.run(req),
      instancesOf: (m) => this.loaded.get(m)?.pool.size,
      modelGraphs: new Map(),
    };
  }

  /** Creates an engine; resolves once every model has loaded (or failed) unless `lazy`. Never throws for one bad model. */
  static async create(opts: EngineOptions): Promise<Engine> {
    const engine = new Engine(opts);
    const models = Object.keys(opts.repository.catalogue.models);
    if (!opts.lazy) await Promise.all([engine.ops.start(), engine.loadModels(models, opts.loadConcurrency)]);
    return engine;
  }

  /** Loads `models` (failures are the models' health), at most `concurrency` at a time (default: all at once). */
  private loadModels(models: readonly string[], concurrency = models.length): Promise<void> {
    return eachAtMost(models, concurrency, (m) => this.runtime(m, undefined));
  }

  private runtime(model: string, settings: ModelNode['params']['settings']): Promise<ModelRuntime> {
    const key = settings && Object.keys(settings).length > 0 ? `${model} ${JSON.stringify(settings)}` : model;
    let p = this.runtimes.get(key);
    if (!p) {
      p = this.loadRuntime(key, model, settings);
      this.runtimes.set(key, p);
    }
    return p;
  }

  private async loadRuntime(
    key: string,
    model: string,
    settings: ModelNode['params']['settings'],
  ): Promise<ModelRuntime> {
    const m = catalogueModel(this.repository.catalogue, model);
    const path = this.repository.modelFile(model);
    const backend = !m
      ? undefined
      : m.platform === 'onnxruntime_onnx' || m.backend === 'onnxruntime'
        ? 'onnx'
        : m.backend === 'python'
          ? 'python'
          : undefined;
    const why = !m
      ? `model '${model}' is not in the repository`
      : m.error
        ? `model '${model}' failed to load: ${m.error}`
        : !backend
          ? `model '${model}' uses ${m.platform || m.backend || 'no backend'}; the studio runs onnxruntime and python models, plus routers, conditions and ops as node kinds`
          : !path || !existsSync(path)
            ? `model '${model}' has no model file in the repository`
            : undefined;
    if (why) {
      this.unavailable.set(key, why);
      throw new EngineError('model-unavailable', why);
    }
    const log = this.opts.onModelLog;
    const config = applySettings(m!, settings);
    const idleMicroseconds = config.sequence_batching?.max_sequence_idle_microseconds || 1_000_000;
    const rt = new ModelRuntime({
      name: model,
      config,
      path: path!,
      backend: backend!,
      repoDir: this.repository.dir,
      intraOpThreads: this.opts.intraOpThreads ?? 1,
      gpu: this.opts.gpu ?? 'auto',
      // Starts waiting for a sequence slot each hold a run: a quarter of the runs at most, so one model's backlog
      // cannot take every run from the other models.
      maxSequenceBacklog: Math.max(1, Math.floor((this.opts.maxConcurrentRuns ?? 64) / 4)),
      onEnded: (sequenceId, reason) => {
        for (const listener of this.sequenceEndedListeners) listener({ model, sequenceId, reason, idleMicroseconds });
      },
      python: {
        interpreter: this.opts.python ?? process.env.STUDIO_PYTHON ?? 'python3',
        version: m!.versions.at(-1) ?? 1,
        bls: (call, sink) => answerBls(this.blsDeps, call, sink),
        ...(log
          ? { log: (instance: string, level: string, message: string) => log(model, instance, level, message) }
          : {}),
      },
    });
    this.loaded.set(key, rt);
    await rt.load();
    if (rt.state !== 'ready')
      throw new EngineError('model-unavailable', `model '${model}' is unavailable: ${rt.error}`);
    return rt;
  }

  /**
   * Triton's repository "load" of `models`: serves `repository` (the same directory, re-read) from now on and
   * loads `models` again from it; their old runtimes finish the runs that hold them, then close. Every other
   * model keeps its workers, its python processes and its sequences; graphs are prepared anew on their next
   * run. Resolves once the models have loaded (or failed: `health` says why).
   */
  async reload(repository: Repository, models: Iterable<string>): Promise<void> {
    const names = new Set(models);
    // A runtime's key is its model's name, then ` {settings}` when a node overrides settings.
    const ofNames = (key: string) => names.has(key.split(' {', 1)[0]!);
    this.repository = this.blsDeps.repository = repository;
    this.blsDeps.modelGraphs.clear();
    this.prepared = new WeakMap();
    this.ready = new WeakMap();
    const old: ModelRuntime[] = [];
    for (const key of [...this.runtimes.keys()]) {
      if (!ofNames(key)) continue;
      this.runtimes.delete(key);
      const rt = this.loaded.get(key);
      if (rt) old.push(rt);
      this.loaded.delete(key);
    }
    for (const key of [...this.unavailable.keys()]) if (ofNames(key)) this.unavailable.delete(key);
    const exported = this.exportedRuns;
    this.exportedRuns = undefined;
    void exported?.close().catch(() => undefined);
    await this.loadModels(
      [...names].filter((m) => catalogueModel(repository.catalogue, m)),
      servingLoadConcurrency(),
    );
    // Retired after the new ones load: a run that took an old runtime just before has dispatched to it by then.
    for (const rt of old) this.retire(rt);
  }

  /**
   * Closes a runtime a reload replaced once the runs that already hold it are done (as Triton lets a reloaded
   * model's old version finish what it has), or after the default run time limit if one never finishes.
   */
  private retire(rt: ModelRuntime): void {
    this.retiring.add(rt);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.opts.defaultTimeoutMs || 60_000);
      timer.unref();
    });
    void Promise.race([rt.pool.onIdle(), limit])
      .then(() => {
        clearTimeout(timer);
        if (this.retiring.delete(rt)) return rt.close();
      })
      .catch(() => undefined);
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
    const stats = this.statsFor(req.graph.name);
    const t0 = performance.now();
    try {
      const result = await this.execute(runId, req, emit);
      if (result.status === 'completed') stats.requestSuccess++;
      else if (result.status === 'exited_early') {
        stats.requestSuccess++;
        stats.exitedEarly++;
      } else stats.requestFailure++;
      return result;
    } catch (err) {
      stats.requestFailure++;
      return failed(runId, emit, err instanceof EngineError ? err.code : 'node-failed', messageOf(err));
    } finally {
      stats.durationNs += Math.round((performance.now() - t0) * 1e6);
      stats.lastRunMs = Date.now();
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

  private async execute(runId: string, req: RunRequest, emit: (m: ServerMessage) => void): Promise<RunResult> {
    const { graph } = req;
    checkInputs(graph, req.inputs);
    // A graph prepared before (every chunk of a stream after its first) is used without awaiting anything.
    const { byNode, runtimes, groups, decoupled, index } =
      this.preparedNow(graph, req) ?? (await this.prepare(graph, req));
    const cancel = new RunCancel();
    // (Closures made per run are kept few: a stream runs a graph ~31 times a second.)
    const onAbort = req.signal ? () => cancel.abort(new EngineError('cancelled', 'the run was cancelled')) : undefined;
    if (req.signal?.aborted) onAbort!();
    else if (onAbort) req.signal!.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = req.timeoutMs ?? this.opts.defaultTimeoutMs ?? 60_000;
    const deadline =
      timeoutMs > 0
        ? this.deadlines.add(timeoutMs, () =>
            cancel.abort(new EngineError('timeout', `the run took longer than its limit of ${timeoutMs} ms`)),
          )
        : undefined;
    try {
      const executor = createExecutor({
        graph: graph.name,
        runtimes: byNode,
        ops: this.ops,
        sequence: req.sequence,
        onBound: req.sequence && req.onEvent ? boundNotice(emit, req.sequence) : undefined,
      });
      const onResponse = req.onResponse && decoupled ? req.onResponse : undefined;
      const options: SchedulerOptions = {
        runId,
        graph,
        index,
        inputs: req.inputs,
        executor,
        signal: cancel,
        emit,
        observed: req.onEvent !== undefined,
        groups: groups && this.runFusion.groups(groups, graph.name),
      };
      if (onResponse) options.onResponse = (o: Record<string, Tensor>) => onResponse(o, false);
      const scheduler = new Scheduler(options);
      for (const rt of runtimes) for (const message of rt.notices) emit({ type: 'notice', level: 'warning', message });
      const t0 = performance.now();
      const r = await scheduler.run();
      this.statsFor(graph.name).streamedResponses += r.partials;
      if (cancel.aborted && req.sequence) for (const rt of runtimes) rt.releaseSequence(req.sequence.id);
      if (req.onEvent) this.emitEnd(runId, r, performance.now() - t0, emit);
      if (req.onResponse && r.status !== 'failed') {
        if (decoupled) req.onResponse({}, true);
        else if (r.status === 'completed') req.onResponse(r.outputs, true);
      }
      const result: RunResult = { runId, status: r.status, outputs: r.outputs, timings: r.timings };
      if (r.exit) result.exit = r.exit;
      if (r.error) result.error = r.error;
      return result;
    } finally {
      if (deadline) this.deadlines.remove(deadline);
      if (onAbort) req.signal!.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Resolves every model node's runtime up front: a graph needing an unavailable model fails before
   * it starts. Each node's runtime is fixed for the engine's life, so this is done once per graph.
   */
  private async prepare(graph: GraphDoc, req: RunRequest): Promise<Prepared> {
    const p = await memoByGraph(this.prepared, graph, this.buildPrepared);
    memoByGraph(this.ready, graph, () => p);
    return checkSequence(p, graph, req);
  }

  /** What `prepare` gave for this document before, while its nodes and edges are the ones it saw. */
  private preparedNow(graph: GraphDoc, req: RunRequest): Prepared | undefined {
    const p = peekByGraph(this.ready, graph);
    return p && checkSequence(p, graph, req);
  }

  /** What `prepare` remembers of a graph (made once, not a closure per run). */
  private readonly buildPrepared = async (g: GraphDoc): Promise<Prepared> => {
    const nodes = g.nodes.filter((n): n is ModelNode => n.kind === 'model');
    const runtimes = await Promise.all(nodes.map((n) => this.runtime(n.params.model, n.params.settings)));
    const byNode = new Map(nodes.map((n, k) => [n.id, runtimes[k]!]));
    const decoupled =
      runtimes.some((rt) => rt.decoupled) ||
      g.nodes.some((n) => n.kind === 'condition' && n.params.strategy === 'gate');
    return {
      byNode,
      runtimes: [...new Set(runtimes)],
      stateful: runtimes.find((rt) => rt.sequences),
      groups: this.fusion(g, byNode),
      decoupled,
      index: indexGraph(g),
    };
  };

  /** Ops that run in their model's worker (fusion.ts); none when `fuseOps` is off or the graph has no ops. */
  private fusion(graph: GraphDoc, byNode: Map<string, ModelRuntime>): Map<string, FusedGroup> | undefined {
    if (this.opts.fuseOps === false || !graph.nodes.some((n) => n.kind === 'op')) return undefined;
    return planFusion(graph, (node) => byNode.get(node.id)?.fusable === true);
  }

  private emitEnd(runId: string, r: SchedulerResult, totalMs: number, emit: (m: ServerMessage) => void): void {
    const outputs = wireOnRead(r.outputs);
    if (r.status === 'completed') emit({ type: 'run.completed', runId, outputs, timings: r.timings, totalMs });
    else if (r.status === 'exited_early' && r.exit) emit({ type: 'run.exited_early', runId, ...r.exit, outputs });
    else emit({ type: 'run.failed', runId, error: r.error ?? { code: 'node-failed', message: 'the run failed' } });
  }

  /** A graph's counters; past MAX_GRAPH_STATS names (clients can send any number of inline graphs) they are pooled. */
  private statsFor(graph: string): GraphMetrics {
    let s = this.graphStats.get(graph);
    if (s) return s;
    const key = this.graphStats.size < MAX_GRAPH_STATS ? graph : OTHER_GRAPHS;
    s = this.graphStats.get(key);
    if (!s) this.graphStats.set(key, (s = emptyGraphMetrics()));
    return s;
  }

  /**
   * Why model `name`'s sessions cannot run (the engine failed to load it), or undefined when they can, are still
   * loading, or the engine does not know it. Readiness asks this on every request, so unlike `health()` it builds
   * nothing: its cost does not grow with the models or the open sequences.
   */
  modelUnavailable(name: string): string | undefined {
    const why = this.unavailable.get(name);
    if (why !== undefined) return why;
    const rt = this.loaded.get(name);
    return rt?.state === 'unavailable' ? (rt.error ?? 'its session did not load') : undefined;
  }

  /** Models, execution providers, notices, active runs and sequences (for /api/health). */
  health(): EngineHealth {
    const models: EngineHealth['models'] = {};
    const inUse: Record<string, string> = {};
    const notices: string[] = [];
    const failed = new Set<string>();
    for (const [key, rt] of this.loaded) {
      models[key] = {
        state: rt.state,
        instances: rt.pool.size,
        ...(rt.error ? { error: rt.error } : {}),
        coldStartMs: rt.coldStartMs,
        firstRunMs: rt.firstRunMs,
      };
      if (rt.state === 'ready') inUse[key] = rt.provider;
      notices.push(...rt.notices);
      for (const f of rt.failures) failed.add(f.split(':')[0]!);
    }
    for (const [key, why] of this.unavailable) {
      const m = catalogueModel(this.repository.catalogue, key);
      models[key] = { state: 'unavailable', instances: m ? instanceCount(m.config) : 0, error: why };
    }
    const available = listSupportedBackends()
      .filter((b) => b.bundled && !failed.has(b.name))
      .map((b) => b.name);
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
    for (const rt of this.loaded.values()) rt.sequences?.release(id, 'end');
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
    const out: SequenceInfo[] = [];
    for (const rt of this.loaded.values()) {
      for (const b of rt.sequences?.list() ?? []) {
        out.push({
          model: rt.name,
          sequenceId: b.id,
          instance: b.instance >= 0 ? `${rt.name}_${b.instance}` : null,
          lastActiveMs: b.lastActiveMs,
        });
      }
    }
    return out;
  }

  /** Counters per model and per graph (Prometheus /metrics). */
  metrics(): EngineMetrics {
    const models: EngineMetrics['models'] = {};
    for (const [key, rt] of this.loaded)
      models[key] = rt.stats.snapshot(rt.sequences?.list().filter((b) => b.instance >= 0).length ?? 0);
    return { models, graphs: Object.fromEntries(this.graphStats) };
  }

  /** Fault injection: crashes instance `index` of a model (tests; operators checking recovery). */
  async crashInstance(model: string, index: number): Promise<void> {
    (await this.runtime(model, undefined)).pool.crashInstance(index);
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
    await Promise.all([
      this.ops.close(),
      this.exportedRuns?.close(),
      ...[...this.loaded.values(), ...this.retiring].map((rt) => rt.close()),
    ]);
    this.retiring.clear();
  }
}

const ignore = (): void => {};

/**
 * Models to load at once while the server answers clients: one per core but the event loop's. Each model boots
 * its instances' threads (or Python processes) together, and on two cores a dozen of them at the main thread's
 * priority left it ~a fifth of a core: other clients waited 90–220 ms during a repository import.
 */
export function servingLoadConcurrency(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** `p`, unless its graph holds a stateful model and the run sent no sequence flags. */
function checkSequence(p: Prepared, graph: GraphDoc, req: RunRequest): Prepared {
  if (p.stateful && !req.sequence) {
    throw new EngineError(
      'invalid-input',
      `graph '${graph.name}' contains the stateful model '${p.stateful.name}': send a sequence id with START/END flags`,
    );
  }
  return p;
}

/** Graph names counted one by one; the runs of any further names share OTHER_GRAPHS. */
const MAX_GRAPH_STATS = 256;
const OTHER_GRAPHS = '(other graphs)';

/** `listener`, whose failures cannot break the run. */
function guarded(listener: (m: ServerMessage) => void): (m: ServerMessage) => void {
  return (m) => {
    try {
      listener(m);
    } catch {
      /* a listener's failure must not break the run */
    }
  };
}

function failed(runId: string, emit: (m: ServerMessage) => void, code: string, message: string): RunResult {
  emit({ type: 'run.failed', runId, error: { code, message } });
  return { runId, status: 'failed', outputs: {}, timings: [], error: { code, message } };
}

/** Tells the client which instance a new sequence was bound to. */
function boundNotice(
  emit: (m: ServerMessage) => void,
  sequence: NonNullable<RunRequest['sequence']>,
): ExecutorDeps['onBound'] {
  return (node, model, instance) =>
    emit({
      type: 'sequence.bound',
      streamId: String(sequence.id),
      sequenceId: sequence.id,
      model,
      instance,
      nodeId: node.id,
    });
}
