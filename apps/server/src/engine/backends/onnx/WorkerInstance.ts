import { statSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../../workerScript.ts';
import { ChainError, EngineError } from '../../errors.ts';
import type { BackendInstance, InstanceFactory } from '../types.ts';
import type { FromWorker, LoadSpec, ToWorker } from './workerProtocol.ts';
import { StepsSent } from './chainStepsWire.ts';

export type Loaded = Extract<FromWorker, { type: 'loaded' }>;
export type WorkerResult = Extract<FromWorker, { type: 'result' }>;
type Result = WorkerResult;
type Request = Extract<ToWorker, { type: 'run' | 'op' | 'chain' }>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type RequestBody = DistributiveOmit<Request, 'id'>;

const ENTRY = new URL('./worker.ts', import.meta.url);

/** Each model spec's key as a guest in other workers (the spec of a reloaded model is a new object: a new key). */
const guestKeys = new WeakMap<LoadSpec, string>();
let nextGuest = 1;
function guestKey(spec: LoadSpec & { kind: 'model' }): string {
  let key = guestKeys.get(spec);
  if (key === undefined) guestKeys.set(spec, (key = `${spec.model}#${nextGuest++}`));
  return key;
}

/**
 * The largest model file another worker loads a copy of to host its requests: the copy is that much more memory (and
 * its session's arena besides) in a second thread. A bound on memory, not a timing.
 */
const GUEST_MAX_BYTES = 64 * 1024 * 1024;

/** Whether a worker may load a copy of `spec`'s model: on the CPU only (a second GPU session is GPU memory) and small. */
function guestable(spec: LoadSpec & { kind: 'model' }): boolean {
  if (!spec.providers.every((p) => p === 'cpu')) return false;
  try {
    return statSync(spec.path).size <= GUEST_MAX_BYTES;
  } catch {
    return false;
  }
}

/**
 * The requests one instance's worker runs for another's (`HostNext`), by id: negative, process-wide, so that they never
 * meet an instance's own ids; the instance whose worker replies to each, and the reader's instance name.
 */
const hostedBy = new Map<number, { host: WorkerInstance; name: string }>();
let nextHostedId = -1;

/** The instances whose workers hold a copy of a model, by its guest key: dropped there when that model's instances close. */
const guestHosts = new Map<string, Set<WorkerInstance>>();

/** A request awaiting its reply, and whether the worker was polling for it when it was posted. */
interface Pending {
  resolve: (r: Result) => void;
  reject: (e: Error) => void;
  spun: boolean;
  /** The instance a hosted request's failure is told of (the reader's, not its host's). */
  name?: string;
}

/**
 * One worker thread hosting one model instance (or the ops). Requests are matched to replies by id;
 * when the thread dies unexpectedly every in-flight request fails with `instance-crashed` and
 * `onCrash` fires so the owner can restart it.
 */
class WorkerInstance implements BackendInstance<RequestBody, WorkerResult> {
  private worker: Worker | undefined;
  /** Settles when the current thread has exited. */
  private exited: Promise<void> = Promise.resolve();
  private nextId = 1;
  private pending = new Map<number, Pending>();
  /** Until when (monotonic ns) the worker polls its port for a request (`spin`); 0 when it does not. */
  private spinsUntilNs = 0;
  /** Guest models loaded (or loading, or refused) in this instance's current worker, by `guestKey`. */
  private guests = new Map<string, 'loading' | 'ready' | 'failed'>();
  /** Hosted requests' replies that came before their request was registered (`awaitHosted`). */
  private early = new Map<number, Extract<FromWorker, { id: number }>>();
  /** The chains' steps the current worker keeps (chainStepsWire.ts): each list is posted to it once. */
  private steps = new StepsSent();
  private closing = false;
  state: 'loading' | 'ready' | 'dead' | 'closed' = 'loading';
  loaded: Loaded | undefined;

  constructor(
    readonly name: string,
    private readonly spec: LoadSpec,
    private readonly onCrash: (inst: BackendInstance<RequestBody, WorkerResult>, err: EngineError) => void,
  ) {}

  /** Starts the thread and loads the session (or ops); resolves with what loaded. */
  async start(): Promise<Loaded> {
    this.state = 'loading';
    const worker = await startWorker(ENTRY);
    if (this.closing) {
      // Closed while its script was being prepared: the thread stops before it loads anything.
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage({ type: 'stop' } satisfies ToWorker);
      await exited;
      this.state = 'closed';
      throw new EngineError('closed', 'the engine is shutting down');
    }
    this.worker = worker;
    this.guests.clear();
    this.steps = new StepsSent();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    return new Promise<Loaded>((resolve, reject) => {
      let settled = false;
      worker.on('message', (msg: FromWorker) => {
        if (msg.type === 'loaded' || msg.type === 'load-failed') {
          settled = true;
          if (msg.type === 'loaded') {
            this.state = 'ready';
            this.loaded = msg;
            resolve(msg);
          } else {
            this.state = 'dead';
            void worker.terminate();
            reject(new EngineError('model-unavailable', msg.message));
          }
          return;
        }
        // Sent only to wake this thread before a reply (Placer.wakeAhead): its work is done by arriving.
        if (msg.type === 'soon') return;
        // A copy that finished loading after its model went (`dropGuest`) stays forgotten.
        if (msg.type === 'guest-loaded') {
          if (this.guests.has(msg.key)) this.guests.set(msg.key, msg.message ? 'failed' : 'ready');
          return;
        }
        if (msg.type === 'result' && msg.sentNs !== undefined) msg.receivedNs = Number(process.hrtime.bigint());
        const p = this.pending.get(msg.id);
        if (p) this.settle(msg.id, p, msg);
        else if (hostedBy.has(msg.id)) this.early.set(msg.id, msg);
      });
      worker.on('error', (err) => this.died(worker, `crashed: ${err.message}`, settled ? undefined : reject));
      worker.on('exit', (code) =>
        this.died(worker, `stopped unexpectedly (exit code ${code})`, settled ? undefined : reject),
      );
      worker.postMessage({ type: 'load', spec: this.spec } satisfies ToWorker);
    });
  }

  private died(worker: Worker, why: string, rejectLoad?: (e: Error) => void): void {
    if (this.worker !== worker || this.state === 'dead' || this.state === 'closed') return;
    const wasClosing = this.closing;
    this.state = wasClosing ? 'closed' : 'dead';
    const err = new EngineError(
      'instance-crashed',
      `model instance ${this.name} ${why}; its in-flight requests failed and it is being restarted`,
    );
    for (const p of this.pending.values())
      p.reject(wasClosing ? new EngineError('closed', 'the engine is shutting down') : err);
    this.pending.clear();
    this.early.clear();
    for (const [id, h] of hostedBy) if (h.host === this) hostedBy.delete(id);
    if (rejectLoad)
      rejectLoad(new EngineError('model-unavailable', `model instance ${this.name} ${why} while loading`));
    else if (!wasClosing) this.onCrash(this, err);
  }

  /** Sends one request; `transfer` buffers move to the worker (they are detached here afterwards). */
  request(body: RequestBody, transfer: ArrayBuffer[]): Promise<Result> {
    if (body.type === 'chain' && body.viaHost) return expectHosted(body.viaHost.id);
    const worker = this.worker;
    if (!worker || this.state !== 'ready')
      return Promise.reject(new EngineError('instance-crashed', `model instance ${this.name} is not running`));
    const id = this.nextId++;
    const spun = this.spinsUntilNs > 0 && Number(process.hrtime.bigint()) < this.spinsUntilNs;
    this.spinsUntilNs = 0;
    return new Promise<Result>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, spun });
      if (body.type !== 'chain') return worker.postMessage({ ...body, id } as ToWorker, transfer);
      try {
        worker.postMessage(this.steps.message({ ...body, id }), transfer);
      } catch (err) {
        this.steps.failed();
        throw err;
      }
    });
  }

  /** A reply to request `id` (or a hosted one: `p.name`) settles what awaits it. */
  private settle(id: number, p: Pending, msg: Extract<FromWorker, { id: number }>): void {
    this.pending.delete(id);
    hostedBy.delete(id);
    if (msg.type === 'result') {
      if (msg.arrivedNs !== undefined) msg.spun = p.spun;
      p.resolve(msg);
    } else
      p.reject(
        msg.stage !== undefined
          ? new ChainError(msg.message, msg.stage, msg.stages ?? [], p.name ?? this.name)
          : new EngineError('node-failed', msg.message),
      );
  }

  /** Hosted request `id` (`host`): settled by its reply, at once when that came first. */
  awaitHosted(id: number, name: string): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const p: Pending = { resolve, reject, spun: false, name };
      const early = this.early.get(id);
      this.early.delete(id);
      if (early) this.settle(id, p, early);
      else this.pending.set(id, p);
    });
  }

  /** Has the worker poll its port for the next request for up to `ns` rather than sleep (Placer.spinAhead). */
  spin(ns: number): void {
    if (!this.worker || this.state !== 'ready') return;
    this.worker.postMessage({ type: 'spin', ns } satisfies ToWorker);
    this.spinsUntilNs = Number(process.hrtime.bigint()) + ns;
  }

  /**
   * Has this instance's worker run the request that reads its next chain's outputs, on its copy of `to`'s model
   * (hostAhead.ts): the key of that copy and the id the request is registered and answered under (`viaHost`), once
   * the copy is loaded; undefined until then (the first call asks for it), or when either instance is not running.
   */
  host(to: BackendInstance<RequestBody, WorkerResult>): { guest: string; id: number } | undefined {
    if (!(to instanceof WorkerInstance) || to === this || to.spec.kind !== 'model') return undefined;
    if (!this.worker || this.state !== 'ready' || to.state !== 'ready') return undefined;
    const guest = guestKey(to.spec);
    const state = this.guests.get(guest);
    if (state === undefined) {
      if (!guestable(to.spec)) return void this.guests.set(guest, 'failed');
      this.guests.set(guest, 'loading');
      this.worker.postMessage({ type: 'guest', key: guest, spec: to.spec } satisfies ToWorker);
      (guestHosts.get(guest) ?? guestHosts.set(guest, new Set()).get(guest)!).add(this);
    }
    if (state !== 'ready') return undefined;
    const id = nextHostedId--;
    hostedBy.set(id, { host: this, name: to.name });
    return { guest, id };
  }

  /** A hosted request that will not run (the chain before it stopped short): it fails with `early-exit`. */
  release(id: number): void {
    const h = hostedBy.get(id);
    if (!h) return;
    hostedBy.delete(id);
    h.host.early.delete(id);
    const p = h.host.pending.get(id);
    h.host.pending.delete(id);
    p?.reject(new EngineError('early-exit', 'not run: the request before it stopped short (hostAhead.ts)'));
  }

  /** Has this instance's worker release its copy of the model under `key` (once the runs on it are done). */
  private dropGuest(key: string): void {
    if (!this.guests.delete(key) || !this.worker || this.state !== 'ready') return;
    this.worker.postMessage({ type: 'drop-guest', key } satisfies ToWorker);
  }

  /** Fault injection: makes the worker exit abruptly, as a native crash would. */
  crash(): void {
    this.worker?.postMessage({ type: 'crash' } satisfies ToWorker);
  }

  /**
   * Stops the thread once it is between two calls (at once when idle; a session's run or load under way ends
   * first); requests still pending fail with `closed`. Not `worker.terminate()`: a run or load that returns into a
   * terminating thread makes onnxruntime-node's binding throw a C++ exception, which aborts the whole process.
   */
  async close(): Promise<void> {
    this.closing = true;
    // The model is going (unloaded, reloaded, the engine closing): the copies other workers hold of it go too.
    const key = guestKeys.get(this.spec);
    for (const host of (key && guestHosts.get(key)) || []) host.dropGuest(key!);
    if (key) guestHosts.delete(key);
    const w = this.worker;
    if (w && this.state !== 'dead') {
      w.postMessage({ type: 'stop' } satisfies ToWorker);
      await this.exited;
    }
    this.state = 'closed';
  }
}

/** How many workers hold a copy of another model (for tests: an unloaded model's copies go with it). */
export const guestCopies = (): number => [...guestHosts.values()].reduce((n, hosts) => n + hosts.size, 0);

/** How many hosted requests are registered and not yet answered or released (for tests: none may be left over). */
export const hostedInFlight = (): number => hostedBy.size;

/** The hosted request `id`'s reply, from the worker hosting it (`WorkerInstance.host`). */
function expectHosted(id: number): Promise<Result> {
  const h = hostedBy.get(id);
  if (!h) return Promise.reject(new EngineError('early-exit', 'not run: the request before it stopped short'));
  return h.host.awaitHosted(id, h.name);
}

/**
 * The ONNX backend's instances: worker threads each loading `spec` (an onnxruntime session, or the ops).
 * @example new InstancePool({ name: 'det', count: 2, create: workerInstances(spec) })
 */
export function workerInstances(spec: LoadSpec): InstanceFactory<RequestBody, WorkerResult> {
  return (name, onCrash) => new WorkerInstance(name, spec, onCrash);
}
