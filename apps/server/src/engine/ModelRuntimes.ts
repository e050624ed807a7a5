import { existsSync } from 'node:fs';
import { listSupportedBackends } from 'onnxruntime-node';
import { applySettings, catalogueModel, type ModelNode } from '@ensemble-studio/core';
import type { BlsCall, BlsSink } from './backends/python/pythonTypes.ts';
import { eachAtMost } from './eachAtMost.ts';
import { EngineError } from './errors.ts';
import { ModelRuntime } from './ModelRuntime.ts';
import { instanceCount } from './modelSetup.ts';
import type { Repository } from '../repo/types.ts';
import type { EngineHealth, EngineOptions } from './types.ts';

/** A sequence a model ended, and why. */
export interface SequenceEnded {
  model: string;
  sequenceId: number | string;
  reason: 'end' | 'idle' | 'failed' | 'cancelled';
  /** The model's max_sequence_idle_microseconds (what `reason: 'idle'` waited). */
  idleMicroseconds: number;
}

/** What the runtimes need from the engine that owns them. */
export interface RuntimeDeps {
  opts: EngineOptions;
  /** The repository served now (a reload brings a re-read one). */
  repository(): Repository;
  /** Answers a Python model's BLS call. */
  bls(call: BlsCall, sink: BlsSink): void;
  /** Hears every sequence a model ends. */
  onSequenceEnded(ended: SequenceEnded): void;
}

/** The models' part of `Engine.health()`. */
export interface RuntimesHealth {
  models: EngineHealth['models'];
  /** The execution provider of each ready model. */
  inUse: Record<string, string>;
  notices: string[];
  /** Execution providers bundled with onnxruntime that no model failed on. */
  available: string[];
}

/**
 * The engine's model runtimes: one per model, or per model and settings when a graph's node overrides them,
 * loaded on first use (or all at once by `loadAll`), reported, and replaced by a reload while the runs holding
 * the old ones finish. A model that cannot load is remembered with why.
 */
export class ModelRuntimes {
  private runtimes = new Map<string, Promise<ModelRuntime>>();
  private loaded = new Map<string, ModelRuntime>();
  /** Runtimes a reload replaced, closed once their runs finish (`retire`). */
  private readonly retiring = new Set<ModelRuntime>();
  private unavailable = new Map<string, string>();

  constructor(private readonly deps: RuntimeDeps) {}

  /** Loads `models` (failures are the models' health), at most `concurrency` at a time (default: all at once). */
  loadAll(models: readonly string[], concurrency = models.length): Promise<void> {
    return eachAtMost(models, concurrency, (m) => this.get(m, undefined));
  }

  /** The runtime of `model` with `settings` applied, loaded on first use. @throws EngineError 'model-unavailable' */
  get(model: string, settings: ModelNode['params']['settings']): Promise<ModelRuntime> {
    const key = settings && Object.keys(settings).length > 0 ? `${model} ${JSON.stringify(settings)}` : model;
    let p = this.runtimes.get(key);
    if (!p) {
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
    const why = this.unavailable.get(name);
    if (why !== undefined) return why;
    const rt = this.loaded.get(name);
    return rt?.state === 'unavailable' ? (rt.error ?? 'its session did not load') : undefined;
  }

  /** Every model's state, instances and timings, the providers in use and the notices. */
  health(): RuntimesHealth {
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
      const m = catalogueModel(this.deps.repository().catalogue, key);
      models[key] = { state: 'unavailable', instances: m ? instanceCount(m.config) : 0, error: why };
    }
    const available = listSupportedBackends()
      .filter((b) => b.bundled && !failed.has(b.name))
      .map((b) => b.name);
    return { models, inUse, notices, available };
  }

  /**
   * Forgets the runtimes of `models` (under any settings), so the next `get` loads them anew, and returns the
   * loaded ones for `retire`.
   */
  forget(models: ReadonlySet<string>): ModelRuntime[] {
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
    return old;
  }

  /**
   * Closes a runtime a reload replaced once the runs that already hold it are done (as Triton lets a reloaded
   * model's old version finish what it has), or after `limitMs` if one never finishes.
   */
  retire(rt: ModelRuntime, limitMs: number): void {
    this.retiring.add(rt);
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, limitMs);
      timer.unref();
    });
    void Promise.race([rt.pool.onIdle(), limit])
      .then(() => {
        clearTimeout(timer);
        if (this.retiring.delete(rt)) return rt.close();
      })
      .catch(() => undefined);
  }

  /** Closes every runtime, retiring ones included. */
  async close(): Promise<void> {
    await Promise.all([...this.loaded.values(), ...this.retiring].map((rt) => rt.close()));
    this.retiring.clear();
  }

  private async load(key: string, model: string, settings: ModelNode['params']['settings']): Promise<ModelRuntime> {
    const { opts } = this.deps;
    const repository = this.deps.repository();
    const m = catalogueModel(repository.catalogue, model);
    const path = repository.modelFile(model);
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
    const log = opts.onModelLog;
    const config = applySettings(m!, settings);
    const idleMicroseconds = config.sequence_batching?.max_sequence_idle_microseconds || 1_000_000;
    const rt = new ModelRuntime({
      name: model,
      config,
      path: path!,
      backend: backend!,
      repoDir: repository.dir,
      intraOpThreads: opts.intraOpThreads ?? 1,
      gpu: opts.gpu ?? 'auto',
      // Starts waiting for a sequence slot each hold a run: a quarter of the runs at most, so one model's backlog
      // cannot take every run from the other models.
      maxSequenceBacklog: Math.max(1, Math.floor((opts.maxConcurrentRuns ?? 64) / 4)),
      onEnded: (sequenceId, reason) => this.deps.onSequenceEnded({ model, sequenceId, reason, idleMicroseconds }),
      python: {
        interpreter: opts.python ?? process.env.STUDIO_PYTHON ?? 'python3',
        version: m!.versions.at(-1) ?? 1,
        bls: (call, sink) => this.deps.bls(call, sink),
        ...(opts.tensorLimits ? { limits: opts.tensorLimits } : {}),
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
}
