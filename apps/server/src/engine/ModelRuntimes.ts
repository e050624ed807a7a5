import { catalogueModel, type ModelNode } from '@ensemble-studio/core';
import { buildRuntime } from './buildRuntime.ts';
import { eachAtMost } from './eachAtMost.ts';
import { EngineError } from './errors.ts';
import { ModelRuntime } from './ModelRuntime.ts';
import type { RestartOutcome, RuntimeDeps, RuntimesHealth } from './modelRuntimeTypes.ts';
import { runtimesHealth } from './runtimesHealth.ts';

/**
 * The engine's model runtimes: one per model, or per model and settings when a graph's node overrides them,
 * loaded on first use (or all at once by `loadAll`), reported, replaced by a restart or ended by an unload while
 * the runs holding the old ones finish. A model that cannot load is remembered with why.
 */
export class ModelRuntimes {
  private runtimes = new Map<string, Promise<ModelRuntime>>();
  private loaded = new Map<string, ModelRuntime>();
  /** Runtimes a restart replaced or an unload ended, closed once their runs finish (`retire`). */
  private readonly retiring = new Set<ModelRuntime>();
  private unavailable = new Map<string, string>();
  /** Models an unload ended: refused under any settings (none starts on first use) until a restart loads them. */
  private readonly unloaded = new Set<string>();
  private closed = false;
  /**
   * The new runtime of each model a restart is loading. It serves nothing until it has loaded: the model's old
   * runtime, if it has one, serves meanwhile (as Triton loads a served model's new version in the background).
   */
  private readonly starting = new Map<string, Starting>();

  constructor(private readonly deps: RuntimeDeps) {}

  /** Loads `models` (failures are the models' health), at most `concurrency` at a time (default: all at once). */
  loadAll(models: readonly string[], concurrency = models.length): Promise<void> {
    return eachAtMost(models, concurrency, (m) => this.get(m, undefined));
  }

  /** The runtime of `model` with `settings` applied, loaded on first use. @throws EngineError 'model-unavailable' */
  get(model: string, settings: ModelNode['params']['settings']): Promise<ModelRuntime> {
    // Closed while `loadAll` went through the models (a server stopped while it started): nothing more starts.
    if (this.closed) return Promise.reject(new EngineError('closed', 'the engine is shutting down'));
    const key = settings && Object.keys(settings).length > 0 ? `${model} ${JSON.stringify(settings)}` : model;
    let p = this.runtimes.get(key);
    if (!p && this.unloaded.has(model))
      return Promise.reject(new EngineError('model-unavailable', unloadedReason(model)));
    if (!p) {
      // A model whose first runtime is still starting is not ready (Triton refuses it): a request does not wait
      // on a load that may never end, nor start a second one.
      if (this.starting.has(model) && !this.runtimes.has(model))
        return Promise.reject(new EngineError('model-unavailable', loadingReason(model)));
      p = this.load(key, model, settings);
      this.runtimes.set(key, p);
    }
    return p;
  }

  /** How many instances `model` runs, once loaded. */
  instancesOf(model: string): number | undefined {
    return this.loaded.get(model)?.pool.size;
  }

  /** The runtimes loaded (or loading), in load order. */
  all(): IterableIterator<[key: string, runtime: ModelRuntime]> {
    return this.loaded.entries();
  }

  /**
   * Why model `name`'s sessions cannot run, or undefined when they can, are still loading, or it was never asked
   * for. Builds nothing, so readiness can ask it on every request.
   */
  unavailableReason(name: string): string | undefined {
    if (this.starting.has(name) && this.loaded.get(name)?.state !== 'ready') return loadingReason(name);
    const why = this.unavailable.get(name);
    if (why !== undefined) return why;
    const rt = this.loaded.get(name);
    return rt?.state === 'unavailable' ? (rt.error ?? 'its session did not load') : undefined;
  }

  /** Every model's state, instances and timings, the providers in use and the notices. */
  health(): RuntimesHealth {
    const { loaded, unavailable, starting } = this;
    return runtimesHealth({ loaded, unavailable, starting, repository: this.deps.repository() });
  }

  /**
   * Triton's load of `models` (at most `concurrency` at a time): each is started anew from the repository served
   * now while its old runtime, if any, goes on serving; once the new one has loaded it serves instead, and the old
   * one finishes its runs and closes. One that fails to load leaves a model served before serving as it was (as
   * Triton keeps a version whose reload failed) and makes any other unavailable. A model gone from the repository is
   * dropped. Resolves when every one has loaded, failed or been aborted, with how each ended.
   */
  async restart(models: readonly string[], concurrency: number): Promise<Map<string, RestartOutcome>> {
    const outcomes = new Map<string, RestartOutcome>();
    await eachAtMost(models, concurrency, async (m) => void outcomes.set(m, await this.restartOne(m)));
    return outcomes;
  }

  /** Whether a restart is loading `model` now. */
  isStarting(model: string): boolean {
    return this.starting.has(model);
  }

  /**
   * Triton's unload of `model`: a load of it under way ends (its new instances close: a Python stub still in
   * `initialize` is killed), and its runtimes (under any settings) retire: the runs already holding them finish,
   * then they close (a Python model's `finalize` runs and its stub exits; an ONNX model's sessions are released).
   * It is refused (a request must not start it on first use) until a `restart` loads it again. An ensemble has no
   * runtime: its composing models are left as they are.
   */
  unload(model: string): void {
    this.abort(model);
    const old = this.forget(new Set([model]));
    const m = catalogueModel(this.deps.repository().catalogue, model);
    if (m && m.platform !== 'ensemble') {
      this.markUnavailable(model, unloadedReason(model));
      this.unloaded.add(model);
    }
    this.deps.onReplaced();
    for (const o of old) this.retire(o, this.retireLimitMs());
  }

  /**
   * Ends the load a restart has under way for `model` (its instances are closed: a Python stub still in
   * `initialize` is killed); the model's old runtime, if any, carries on.
   */
  private abort(model: string): void {
    const entry = this.starting.get(model);
    if (!entry) return;
    this.starting.delete(model);
    entry.ended();
    void entry.rt.close().catch(() => undefined);
  }

  /** One model of `restart`. */
  private async restartOne(model: string): Promise<RestartOutcome> {
    const m = catalogueModel(this.deps.repository().catalogue, model);
    const built = m ? this.build(model, undefined) : undefined;
    if (!(built instanceof ModelRuntime)) {
      // Gone from the repository, or an ensemble (it runs as a graph: it has no runtime of its own).
      if (built === undefined || m?.platform === 'ensemble') {
        this.replace(model, undefined);
        if (built !== undefined) this.unavailable.set(model, built);
        return { type: 'loaded' };
      }
      return this.failed(model, built);
    }
    // A restart of a model already starting supersedes it (the repository changed again).
    this.abort(model);
    let ended!: () => void;
    const aborted = new Promise<void>((resolve) => (ended = resolve));
    const entry = { rt: built, ended };
    this.starting.set(model, entry);
    // Its restart ends when it is aborted, even if its load never returns (a session creation cannot be cut short).
    await Promise.race([built.load(), aborted]);
    if (this.starting.get(model) !== entry) return { type: 'aborted' };
    this.starting.delete(model);
    if (built.state !== 'ready') {
      void built.close().catch(() => undefined);
      return this.failed(model, `model '${model}' failed to load: ${built.error ?? 'its instances did not start'}`);
    }
    this.replace(model, built);
    return { type: 'loaded' };
  }

  /** `model`'s new runtime could not be made or loaded: one served before goes on; otherwise it is unavailable. */
  private failed(model: string, error: string): RestartOutcome {
    const kept = this.loaded.get(model)?.state === 'ready' && this.runtimes.has(model);
    if (!kept) {
      this.replace(model, undefined);
      this.markUnavailable(model, error);
    }
    return { type: 'failed', error, kept };
  }

  /** Refuses `model` with `why` until it is loaded again (a request must not start it on first use). */
  private markUnavailable(model: string, why: string): void {
    this.unavailable.set(model, why);
    const p = Promise.reject(new EngineError('model-unavailable', why));
    p.catch(() => undefined);
    this.runtimes.set(model, p);
  }

  /** Serves `rt` (or nothing) as `model` from now on; the runtimes it replaces retire. */
  private replace(model: string, rt: ModelRuntime | undefined): void {
    const old = this.forget(new Set([model]));
    if (rt) {
      this.loaded.set(model, rt);
      const p =
        rt.state === 'ready'
          ? Promise.resolve(rt)
          : Promise.reject(new EngineError('model-unavailable', `model '${model}' is unavailable: ${rt.error}`));
      p.catch(() => undefined);
      this.runtimes.set(model, p);
    }
    this.deps.onReplaced();
    // Retired once the new one serves: the requests an old runtime accepted are answered before it closes.
    for (const o of old) this.retire(o, this.retireLimitMs());
  }

  /** How long a retired runtime waits for the runs holding it: one that never ends is cut after the run time limit. */
  private retireLimitMs(): number {
    return this.deps.opts.defaultTimeoutMs || 60_000;
  }

  /** Forgets the runtimes of `models` (under any settings), so the next `get` loads them anew; returns the loaded ones. */
  private forget(models: ReadonlySet<string>): ModelRuntime[] {
    // A runtime's key is its model's name, then ` {settings}` when a node overrides settings.
    const ofNames = (key: string) => models.has(key.split(' {', 1)[0]!);
    const old: ModelRuntime[] = [];
    for (const key of [...this.runtimes.keys()]) {
      if (!ofNames(key)) continue;
      this.runtimes.delete(key);
      const rt = this.loaded.get(key);
      if (rt) old.push(rt);
      this.loaded.delete(key);
    }
    for (const key of [...this.unavailable.keys()]) if (ofNames(key)) this.unavailable.delete(key);
    for (const m of models) this.unloaded.delete(m);
    return old;
  }

  /**
   * Closes a runtime a restart replaced or an unload ended once the runs that already hold it are done (as Triton
   * lets a reloaded or unloaded model's version finish what it has), or after `limitMs` if one never finishes.
   */
  private retire(rt: ModelRuntime, limitMs: number): void {
    this.retiring.add(rt);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, limitMs);
      timer.unref();
    });
    void Promise.race([rt.onIdle(), limit])
      .then(() => {
        clearTimeout(timer);
        if (this.retiring.delete(rt)) return rt.close();
      })
      .catch(() => undefined);
  }

  /** Closes every runtime, retiring and starting ones included (a stub stuck in `initialize` is killed). */
  async close(): Promise<void> {
    this.closed = true;
    const starting = [...this.starting.values()];
    this.starting.clear();
    for (const s of starting) s.ended();
    const all = [...this.loaded.values(), ...this.retiring, ...starting.map((s) => s.rt)];
    this.retiring.clear();
    await Promise.all(all.map((rt) => rt.close()));
  }

  private async load(key: string, model: string, settings: ModelNode['params']['settings']): Promise<ModelRuntime> {
    const built = this.build(model, settings);
    if (typeof built === 'string') {
      this.unavailable.set(key, built);
      throw new EngineError('model-unavailable', built);
    }
    this.loaded.set(key, built);
    await built.load();
    if (built.state !== 'ready')
      throw new EngineError('model-unavailable', `model '${model}' is unavailable: ${built.error}`);
    return built;
  }

  /** A runtime of `model` with `settings` from the repository served now (not loaded yet), or why there can be none. */
  private build(model: string, settings: ModelNode['params']['settings']): ModelRuntime | string {
    const { deps } = this;
    return buildRuntime({
      repository: deps.repository(),
      opts: deps.opts,
      model,
      settings,
      bls: (call, sink) => deps.bls(call, sink),
      metrics: deps.metrics,
      ...(deps.responseCache ? { responseCache: deps.responseCache } : {}),
      onEnded: (sequenceId, reason, idleMicroseconds) =>
        deps.onSequenceEnded({ model, sequenceId, reason, idleMicroseconds }),
    });
  }
}

/** A restart's new runtime while it loads, and what ends its restart early (`abort`, `close`). */
interface Starting {
  rt: ModelRuntime;
  ended(): void;
}

function unloadedReason(model: string): string {
  return `model '${model}' is unloaded`;
}

function loadingReason(model: string): string {
  return `model '${model}' is loading`;
}
