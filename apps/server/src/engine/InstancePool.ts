import type { CancelSignal } from './cancel.ts';
import { callOnce } from './callOnce.ts';
import { abortError, dequeueOnAbort, EngineError, messageOf } from './errors.ts';
import type { BackendInstance, InstanceFactory, LoadInfo } from './backends/types.ts';

/** What one pooled request returns. */
export interface PoolResult<Result> {
  result: Result;
  instance: string;
  instanceIndex: number;
  queueNs: number;
  /** When an instance took it (monotonic ns, `process.hrtime`): Triton's COMPUTE_START. */
  startNs: number;
}

interface Job<Body, Result> {
  body: Body;
  transfer: ArrayBuffer[];
  /** Pinned instance (sequence batching), or undefined for any idle instance. */
  pin: number | undefined;
  signal: CancelSignal | undefined;
  enqueuedAt: bigint;
  /** Model requests the job carries (a batch's); counted as executing from dispatch until its caller is answered. */
  requests: number;
  /** Requests of this job now counted in the pool's `executing` (0 before dispatch and once answered). */
  counted: number;
  resolve: (r: PoolResult<Result>) => void;
  reject: (e: Error) => void;
  onAbort?: () => void;
}

/** Options of a pool: `count` instances named `<name>_<i>`, each made by `create`. */
export interface InstancePoolOptions<Body, Result> {
  name: string;
  count: number;
  create: InstanceFactory<Body, Result>;
  restartDelayMs?: number;
  pipelineDepth?: number;
}

/**
 * Requests handed to one worker ahead of time. The worker still runs them one at a time, but the next
 * request is already in its port when the current one finishes, so a busy instance never idles for a
 * thread round trip, which can take as long as a small model's whole inference.
 */
const PIPELINE_DEPTH = 2;

/**
 * `instance_group { count }`: `count` instances of one backend (worker threads each holding a session, or
 * python3 processes); at most one request
 * runs on an instance at a time (a second may wait in its worker, see PIPELINE_DEPTH), the rest queue (FIFO). Honours its cancel signal while queued (the job is
 * dropped) and while running (the caller is released at once; the instance stays busy until onnxruntime
 * returns). A crashed worker fails its request with `instance-crashed` and is restarted.
 * @example const pool = new InstancePool({ name: 'det', count: 2, create: workerInstances(spec) }); await pool.start(); await pool.run({ type: 'run', feeds }, []);
 */
export class InstancePool<Body, Result> {
  readonly instances: BackendInstance<Body, Result>[] = [];
  /** Requests handed to each worker and not yet answered. */
  private inflight: number[] = [];
  /** Requests handed to workers and not yet settled (a freed instance's request may still be streaming). */
  private unsettled = 0;
  private queue: Job<Body, Result>[] = [];
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  private crashListeners: ((index: number, err: EngineError) => void)[] = [];
  private executingRequests = 0;
  restarts = 0;

  constructor(private readonly opts: InstancePoolOptions<Body, Result>) {
    for (let i = 0; i < opts.count; i++) {
      this.instances.push(opts.create(`${opts.name}_${i}`, (inst, err) => this.crashed(inst, err)));
      this.inflight.push(0);
    }
  }

  /** Loads every instance; resolves with the first instance's load info, rejects when none loaded. */
  async start(): Promise<LoadInfo> {
    const results = await Promise.allSettled(this.instances.map((i) => i.start()));
    const ok = results.find((r): r is PromiseFulfilledResult<LoadInfo> => r.status === 'fulfilled');
    if (!ok)
      throw new EngineError(
        'model-unavailable',
        messageOf((results[0] as PromiseRejectedResult | undefined)?.reason ?? 'no instances'),
      );
    this.pump();
    return ok.value;
  }

  /** Called when an instance dies: `index` is its position; bound sequences must be ended. */
  onCrash(listener: (index: number, err: EngineError) => void): void {
    this.crashListeners.push(listener);
  }

  /** Number of instances and which are busy (for placement and health). */
  get size(): number {
    return this.instances.length;
  }
  isBusy(i: number): boolean {
    return (this.inflight[i] ?? 0) > 0;
  }
  get queued(): number {
    return this.queue.length;
  }
  /**
   * Model requests handed to an instance whose callers are still waiting (Triton's EXECUTING state: what is not
   * pending any more). A job handed to a worker ahead of time (`PIPELINE_DEPTH`) counts from then.
   */
  get executing(): number {
    return this.executingRequests;
  }

  /** Runs one request on an idle instance (or on instance `pin`), queueing while all are busy. */
  run(
    body: Body,
    transfer: ArrayBuffer[],
    opts: { signal?: CancelSignal; pin?: number; requests?: number } = {},
  ): Promise<PoolResult<Result>> {
    if (this.closed) return Promise.reject(new EngineError('closed', 'the engine is shutting down'));
    if (opts.signal?.aborted) return Promise.reject(abortError(opts.signal));
    return new Promise<PoolResult<Result>>((resolve, reject) => {
      const job: Job<Body, Result> = {
        body,
        transfer,
        pin: opts.pin,
        signal: opts.signal,
        enqueuedAt: process.hrtime.bigint(),
        requests: opts.requests ?? 1,
        counted: 0,
        resolve,
        reject,
      };
      // Aborted while running, the caller is answered at once although the instance goes on: it stops counting then.
      if (opts.signal)
        job.onAbort = dequeueOnAbort(
          () => this.queue,
          job,
          opts.signal,
          (e) => {
            this.answered(job);
            reject(e);
          },
        );
      this.queue.push(job);
      this.pump();
    });
  }

  /**
   * Has the instance the next request would go to poll for it for up to `ns` (`BackendInstance.spin`), when one is
   * idle and nothing waits; returns whether one was asked. The pick is `pump`'s: the first idle instance.
   */
  spinNext(ns: number): boolean {
    const inst = this.instances[this.nextIdle()];
    if (!inst?.spin) return false;
    inst.spin(ns);
    return true;
  }

  /** The instance `pump` would hand the next request to: the first idle one, when nothing waits; -1 when none. */
  nextIdle(): number {
    if (this.queue.length > 0) return -1;
    for (let i = 0; i < this.instances.length; i++)
      if (this.inflight[i] === 0 && this.instances[i]!.state === 'ready') return i;
    return -1;
  }

  private pump(): void {
    const depth = this.opts.pipelineDepth ?? PIPELINE_DEPTH;
    // Least-loaded instance first, so an idle instance always takes a job before a busy one queues a second.
    for (;;) {
      let best = -1;
      let at = -1;
      for (let i = 0; i < this.instances.length; i++) {
        if (this.inflight[i]! >= depth || this.instances[i]!.state !== 'ready') continue;
        if (best >= 0 && this.inflight[i]! >= this.inflight[best]!) continue;
        const j = this.queue.findIndex((q) => q.pin === undefined || q.pin === i);
        if (j >= 0) {
          best = i;
          at = j;
        }
      }
      if (best < 0) break;
      const [job] = this.queue.splice(at, 1);
      this.dispatch(best, job!);
    }
    this.wakeIfIdle();
  }

  private get idle(): boolean {
    return this.queue.length === 0 && this.unsettled === 0;
  }

  private wakeIfIdle(): void {
    if (this.idle) for (const w of this.idleWaiters.splice(0)) w();
  }

  private dispatch(i: number, job: Job<Body, Result>): void {
    this.inflight[i]!++;
    this.unsettled++;
    job.counted = job.requests;
    this.executingRequests += job.requests;
    const inst = this.instances[i]!;
    const now = process.hrtime.bigint();
    const queueNs = Number(now - job.enqueuedAt);
    const startNs = Number(now);
    // As in Triton, an instance is free once its execute returns, even when a decoupled model's responses go on.
    const free = callOnce(() => {
      this.inflight[i]!--;
      this.pump();
    });
    inst
      .request(job.body, job.transfer, free)
      .then(
        (result) => {
          this.answered(job);
          job.resolve({ result, instance: inst.name, instanceIndex: i, queueNs, startNs });
        },
        (err: Error) => {
          this.answered(job);
          job.reject(err);
        },
      )
      .finally(() => {
        if (job.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
        this.unsettled--;
        free();
        this.wakeIfIdle();
      });
  }

  /** The job's caller is answered (or released by its abort): its requests stop counting as executing. */
  private answered(job: Job<Body, Result>): void {
    this.executingRequests -= job.counted;
    job.counted = 0;
  }

  private crashed(inst: BackendInstance<Body, Result>, err: EngineError): void {
    const index = this.instances.indexOf(inst);
    for (const l of this.crashListeners) l(index, err);
    if (this.closed) return;
    this.restarts++;
    // Restart after the failing request has settled, so the restarted instance starts clean.
    setTimeout(() => {
      if (this.closed) return;
      inst.start().then(
        () => this.pump(),
        () => this.failPinned(index, err),
      );
    }, this.opts.restartDelayMs ?? 0);
  }

  /** An instance that cannot restart: fail jobs that can only run on it. */
  private failPinned(index: number, err: EngineError): void {
    this.queue = this.queue.filter((j) => (j.pin === index ? (j.reject(err), false) : true));
    if (this.instances.every((i) => i.state !== 'ready')) for (const j of this.queue.splice(0)) j.reject(err);
  }

  /** Fault injection: crash instance `index` (tests, operators). */
  crashInstance(index: number): void {
    this.instances[index]?.crash();
  }

  /** Resolves when nothing is queued or running. */
  onIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Fails queued jobs, terminates every worker. */
  async close(): Promise<void> {
    this.closed = true;
    for (const j of this.queue.splice(0)) j.reject(new EngineError('closed', 'the engine is shutting down'));
    await Promise.all(this.instances.map((i) => i.close()));
  }
}
