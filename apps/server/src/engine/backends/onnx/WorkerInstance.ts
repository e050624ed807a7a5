import type { Worker } from 'node:worker_threads';
import { startWorker } from '../../../workerScript.ts';
import { ChainError, EngineError } from '../../errors.ts';
import type { BackendInstance, InstanceFactory } from '../types.ts';
import type { FromWorker, LoadSpec, ToWorker } from './workerProtocol.ts';

export type Loaded = Extract<FromWorker, { type: 'loaded' }>;
export type WorkerResult = Extract<FromWorker, { type: 'result' }>;
type Result = WorkerResult;
type Request = Extract<ToWorker, { type: 'run' | 'op' | 'chain' }>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type RequestBody = DistributiveOmit<Request, 'id'>;

const ENTRY = new URL('./worker.ts', import.meta.url);

/** A request awaiting its reply, and whether the worker was polling for it when it was posted. */
interface Pending {
  resolve: (r: Result) => void;
  reject: (e: Error) => void;
  spun: boolean;
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
        const p = this.pending.get(msg.id);
        if (!p) return;
        this.pending.delete(msg.id);
        if (msg.type === 'result') {
          if (msg.sentNs !== undefined) msg.receivedNs = Number(process.hrtime.bigint());
          if (msg.arrivedNs !== undefined) msg.spun = p.spun;
          p.resolve(msg);
        } else
          p.reject(
            msg.stage !== undefined
              ? new ChainError(msg.message, msg.stage, msg.stages ?? [], this.name)
              : new EngineError('node-failed', msg.message),
          );
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
    if (rejectLoad)
      rejectLoad(new EngineError('model-unavailable', `model instance ${this.name} ${why} while loading`));
    else if (!wasClosing) this.onCrash(this, err);
  }

  /** Sends one request; `transfer` buffers move to the worker (they are detached here afterwards). */
  request(body: RequestBody, transfer: ArrayBuffer[]): Promise<Result> {
    const worker = this.worker;
    if (!worker || this.state !== 'ready')
      return Promise.reject(new EngineError('instance-crashed', `model instance ${this.name} is not running`));
    const id = this.nextId++;
    const spun = this.spinsUntilNs > 0 && Number(process.hrtime.bigint()) < this.spinsUntilNs;
    this.spinsUntilNs = 0;
    return new Promise<Result>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, spun });
      worker.postMessage({ ...body, id } as ToWorker, transfer);
    });
  }

  /** Has the worker poll its port for the next request for up to `ns` rather than sleep (Placer.spinAhead). */
  spin(ns: number): void {
    if (!this.worker || this.state !== 'ready') return;
    this.worker.postMessage({ type: 'spin', ns } satisfies ToWorker);
    this.spinsUntilNs = Number(process.hrtime.bigint()) + ns;
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
    const w = this.worker;
    if (w && this.state !== 'dead') {
      w.postMessage({ type: 'stop' } satisfies ToWorker);
      await this.exited;
    }
    this.state = 'closed';
  }
}

/**
 * The ONNX backend's instances: worker threads each loading `spec` (an onnxruntime session, or the ops).
 * @example new InstancePool({ name: 'det', count: 2, create: workerInstances(spec) })
 */
export function workerInstances(spec: LoadSpec): InstanceFactory<RequestBody, WorkerResult> {
  return (name, onCrash) => new WorkerInstance(name, spec, onCrash);
}
