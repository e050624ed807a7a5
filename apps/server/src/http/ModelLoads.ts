import { catalogueModel } from '@ensemble-studio/core';
import type { Engine } from '../engine/index.ts';
import { loadRepository } from '../repo/loadRepository.ts';
import { modelStamps, modelsToLoad, withStamps } from '../repo/modelStamps.ts';
import type { Repository } from '../repo/types.ts';
import { withGraphFiles } from '../repo/saveGraph.ts';
import { withReloaded } from '../repo/withReloaded.ts';
import { ApiError } from './errors.ts';
import { dependentsToUnload } from './unloadDependents.ts';

/** What a load needs of the studio that serves the repository. */
export interface LoadHost {
  repository: Repository;
  readonly engine: Pick<Engine, 'reload' | 'unloadModel' | 'modelUnavailable'>;
  /** Models a client unloaded; a load that loads one serves it again. */
  readonly unloadedModels: Set<string>;
  /** Whether another repository is being opened (it replaces every model: loads are refused meanwhile). */
  readonly importing: boolean;
}

/** A load ready to start, or the loads under way that it must wait for first. */
type Started = { type: 'started'; done: Promise<Repository> } | { type: 'conflict'; wait: Promise<unknown>[] };

/**
 * Triton's repository "load" and "unload", one at a time per model: a load re-reads the repository, (re)starts the
 * model named and the composing models Triton would load with it (`modelsToLoad`), and serves the rest as they were.
 * Loads of different models go on side by side, so a model whose `initialize` never returns holds only the loads
 * and unloads of that model; a second load of a model waits for the first (as Triton's does) and a flood of them
 * joins one waiting load. An unload waits for the loads of its model asked before it, and a load asked after an
 * unload waits for it, as Triton orders requests that touch the same model (its repository manager locks the
 * models a request affects; one that finds them locked waits and retries).
 */
export class ModelLoads {
  /** What each model served now was made of when it was (re)started (modelStamps.ts). */
  private stamps: Promise<Map<string, string>>;
  /** The repository reads, one at a time (they are short: models start after them, beside each other). */
  private reads: Promise<unknown> = Promise.resolve();
  /** Each model a load is (re)starting now, with that load (settled when it ends, never rejected). */
  private starting = new Map<string, Promise<unknown>>();
  /** A load asked for while one of the same model is under way, by name: at most one waits per model. */
  private waiting = new Map<string, Promise<Repository>>();
  /** How many times each model was unloaded: a model a load loaded is served again unless it was unloaded since. */
  private readonly unloads = new Map<string, number>();
  /** An unload under way, by model: loads asked after it start once it is done. */
  private unloading = new Map<string, Promise<unknown>>();
  /**
   * Models served only because a load of an ensemble or graph brought them (Triton's composing models not loaded
   * explicitly): an unload with `unload_dependents` takes them with the last ensemble using them. Every model
   * served at start was loaded explicitly.
   */
  private implicit = new Set<string>();

  constructor(private readonly host: LoadHost) {
    this.stamps = modelStamps(host.repository);
  }

  /**
   * Loads `name` (see the class): resolves with the repository served once its models have loaded or failed.
   * @throws ApiError 400 when `name` failed to load (a model served before goes on as it was), an unload ended it, or
   * the repository cannot be read (Triton's status for a failed load); 409 when another repository was opened meanwhile.
   */
  load(name: string): Promise<Repository> {
    const waiting = this.waiting.get(name);
    if (waiting) return waiting;
    // It stops waiting when it starts, or when it fails before (a load joining it then would only get that failure).
    const leave = () => {
      if (this.waiting.get(name) === load) this.waiting.delete(name);
    };
    const load: Promise<Repository> = this.loadWhenFree(name, this.unloading.get(name), leave);
    this.waiting.set(name, load);
    void load.then(leave, leave);
    return load;
  }

  /**
   * Triton's unload of `name` (with `dependents`, its `unload_dependents`): once the loads of it asked before have
   * ended (loaded or failed), it is marked unloaded and the engine retires its runtime (`Engine.unloadModel`); with
   * `dependents`, so are the composing models `dependentsToUnload` names. Resolves when that is done (the runtimes
   * retire after: runs on them finish first); a load of `name` that never ends holds it, as in Triton.
   */
  unload(name: string, dependents: boolean): Promise<void> {
    const before = [this.waiting.get(name), this.starting.get(name), this.unloading.get(name)];
    // A load asked from now on must not join one asked before: it comes after this unload.
    this.waiting.delete(name);
    const { engine } = this.host;
    const done = Promise.all(before.map((p) => p?.catch(() => undefined))).then(() => {
      // An import meanwhile replaced the repository it was asked of, and every model of it with it.
      if (this.host.engine === engine) this.unloadNow(name, dependents);
    });
    this.unloading.set(name, done);
    void done.then(() => {
      if (this.unloading.get(name) === done) this.unloading.delete(name);
    });
    return done;
  }

  private unloadNow(name: string, dependents: boolean): void {
    const { host } = this;
    const served = (m: string) => !host.unloadedModels.has(m);
    const also = dependents ? dependentsToUnload(name, host.repository.graphs, served, this.implicit) : [];
    for (const m of [name, ...also]) {
      host.unloadedModels.add(m);
      this.implicit.delete(m);
      this.unloads.set(m, (this.unloads.get(m) ?? 0) + 1);
      host.engine.unloadModel(m);
    }
  }

  /** Another repository is served (an import): forgets what was loaded from the one before. */
  reset(repository: Repository): void {
    this.stamps = modelStamps(repository);
    this.starting = new Map();
    this.waiting = new Map();
    this.unloading = new Map();
    this.implicit = new Set();
  }

  private async loadWhenFree(
    name: string,
    unload: Promise<unknown> | undefined,
    started: () => void,
  ): Promise<Repository> {
    await unload;
    for (;;) {
      const busy = this.starting.get(name);
      if (busy) {
        await busy;
        continue;
      }
      // A save or delete of the graph never comes between its files' read and the repository served from it.
      const dir = this.host.repository.dir;
      const next = await this.exclusive(() => withGraphFiles(dir, name, () => this.start(name, started)));
      if (next.type === 'started') return next.done;
      await Promise.all(next.wait);
    }
  }

  /** `read` once the reads before it have ended. */
  private exclusive<T>(read: () => Promise<T>): Promise<T> {
    const run = this.reads.then(read);
    this.reads = run.catch(() => undefined);
    return run;
  }

  /** Re-reads the repository and starts the load of `name`, unless a load of one of its models is under way. */
  private async start(name: string, started: () => void): Promise<Started> {
    const { host } = this;
    if (host.importing) throw busy();
    const { engine } = host;
    const fresh = await readRepository(host.repository.dir);
    const [before, after] = await Promise.all([this.stamps, modelStamps(fresh)]);
    // Nothing is awaited from here until the load has started, so no import or unload comes between.
    if (host.importing || host.engine !== engine) throw busy();
    const served = host.repository;
    const models = modelsToLoad(
      name,
      fresh,
      before,
      after,
      (m) => Object.hasOwn(served.catalogue.models, m) && !host.unloadedModels.has(m) && !engine.modelUnavailable(m),
    );
    const wait = [...models].flatMap((m) => this.starting.get(m) ?? []);
    if (wait.length > 0) return { type: 'conflict', wait };
    started();
    // Triton's explicit load marks the model named as loaded explicitly; a composing model it adds (one not served)
    // is not, and one served keeps how it was loaded.
    for (const m of models)
      if (m === name) this.implicit.delete(m);
      else if (host.unloadedModels.has(m) || !isServed(served, m)) this.implicit.add(m);
    const unloadsNow = new Map([...models].map((m) => [m, this.unloads.get(m) ?? 0]));
    const repo = withReloaded(served, fresh, models);
    host.repository = repo;
    this.stamps = Promise.resolve(withStamps(before, after, models));
    const done = engine.reload(repo, models).then((outcomes) => {
      if (host.engine !== engine)
        throw new ApiError(409, 'busy', `failed to load '${name}': another repository was opened while it was loading`);
      // A model saved or deleted meanwhile (a graph) keeps what that did.
      const untouched = (m: string) =>
        host.repository.catalogue.models[m] === repo.catalogue.models[m] &&
        host.repository.graphs[m] === repo.graphs[m];
      const kept = [...outcomes].flatMap(([m, o]) => (o.type === 'failed' && o.kept && untouched(m) ? [m] : []));
      if (kept.length > 0) {
        // As in Triton, a model whose reload failed goes on with the config and files it was loaded from, and its
        // next load tries again.
        host.repository = withReloaded(host.repository, served, new Set(kept));
        void engine.reload(host.repository, []);
        this.stamps = this.stamps.then((stamps) => withStamps(stamps, before, kept));
      }
      // Every model this load loaded is served again (as Triton's load of an ensemble loads its composing models),
      // unless it was unloaded meanwhile.
      for (const [m, o] of outcomes)
        if (o.type === 'loaded' && (this.unloads.get(m) ?? 0) === unloadsNow.get(m)) host.unloadedModels.delete(m);
      const own = outcomes.get(name);
      if (own?.type === 'aborted')
        throw new ApiError(400, 'load-failed', `failed to load '${name}': it was unloaded while it was loading`);
      if (own?.type === 'failed')
        throw new ApiError(400, 'load-failed', `load failed for model '${name}': ${own.error}`);
      // An ensemble or saved graph has no instances to load: its failure is its config's or its studio.json's.
      const listed = catalogueModel(host.repository.catalogue, name);
      if (listed?.platform === 'ensemble' && listed.error !== undefined)
        throw new ApiError(
          400,
          'load-failed',
          `load failed for model '${name}': model '${name}' failed to load: ${listed.error}`,
        );
      return host.repository;
    });
    const settled = done.catch(() => undefined);
    for (const m of models) this.starting.set(m, settled);
    void settled.then(() => {
      for (const m of models) if (this.starting.get(m) === settled) this.starting.delete(m);
    });
    return { type: 'started', done };
  }
}

/** Whether `repo` serves `name` as a model or a graph (before this load re-read it). */
function isServed(repo: Repository, name: string): boolean {
  return Object.hasOwn(repo.catalogue.models, name) || Object.hasOwn(repo.graphs, name);
}

function busy(): ApiError {
  return new ApiError(409, 'busy', 'another repository is being opened; try again when it is done');
}

/**
 * The repository at `real`, read; ApiError 400 when it cannot be (naming `shown`: the directory as the client named it).
 * @example const fresh = await readRepository(studio.repository.dir)
 */
export async function readRepository(real: string, shown = real): Promise<Repository> {
  try {
    return await loadRepository(real);
  } catch (err) {
    throw new ApiError(
      400,
      'bad-repository',
      `cannot open repository "${shown.slice(0, 256)}": ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}
