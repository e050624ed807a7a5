import type { Writable } from 'node:stream';
import { abortError, EngineError } from '../../errors.ts';
import type { BackendInstance, LoadInfo } from '../types.ts';
import { frameCheck } from './frameLimits.ts';
import { FrameReader, FrameWriter, type Frame } from './frames.ts';
import { executeRequests } from './executeRequests.ts';
import { afterStderr, followStubFrames, writeFrame } from './stubPipes.ts';
import { BlsCalls } from './blsCalls.ts';
import { LogLines } from './logLines.ts';
import type { LogLevel, PyExecute, PyExecuteResult } from './pythonTypes.ts';
import { initArgs, tritonInstanceName, type PythonSpec } from './pythonSpec.ts';
import { loadProblem, withTraceback } from './processProblems.ts';
import { startModelStub } from './stubEnv.ts';
import type { StubChild } from './stubProcess.ts';
import { SERVING_HEALTH_MS, watchStubHealth, watchWhileBusy } from './stubHealth.ts';
import { regionMaxBytes } from './sharedRegion.ts';
import { TensorRegions } from './tensorRegions.ts';
import type { PendingExecute } from './pendingExecute.ts';
import { ExecuteTable } from './executeTable.ts';

/**
 * One Python-backend model instance: a python3 process running our stub, which loads the user's
 * model.py (as Triton's stub process does). Frames go over fds 3/4; stdout and stderr are the model's log.
 */
export class PythonInstance implements BackendInstance<PyExecute, PyExecuteResult> {
  state: BackendInstance<PyExecute, PyExecuteResult>['state'] = 'loading';
  private proc: StubChild | undefined;
  private toPy: Writable | undefined;
  /** fd 5: cancels and BLS replies, read by the stub's main thread while its model thread runs `execute`. */
  private toPyAtOnce: Writable | undefined;
  private readonly executes = new ExecuteTable(
    (offsets) => this.regions.free(offsets),
    (busy) => this.watchServing(busy),
  );
  private readonly servingHealth = watchWhileBusy();
  /** Set when the serving health watch killed the stub: its exit fails the requests with these words. */
  private unhealthyWhy: string | undefined;
  private loading: { resolve: (r: LoadInfo) => void; reject: (e: Error) => void; stderr: string[] } | undefined;
  private closing: (() => void) | undefined;
  private readonly blsCalls: BlsCalls;
  private readonly lines: LogLines;
  private regions = TensorRegions.open(undefined, '');

  constructor(
    readonly name: string,
    private readonly spec: PythonSpec,
    private readonly onCrash: (inst: PythonInstance, err: EngineError) => void,
  ) {
    this.lines = new LogLines((level, message) => this.logged(level, message));
    this.blsCalls = new BlsCalls(
      { model: spec.model, instance: name },
      spec.bls,
      (frame) => writeFrame(this.toPyAtOnce, frame),
      () => this.state === 'ready',
    );
  }

  async start(): Promise<LoadInfo> {
    this.state = 'loading';
    const t0 = performance.now();
    let proc: StubChild;
    try {
      proc = await startModelStub(this.spec.python, this.spec.modelFile);
    } catch (err) {
      this.state = 'dead';
      throw err;
    }
    // close() may have run while the process was starting.
    if ((this.state as string) === 'closed') {
      proc.kill('SIGKILL');
      throw new EngineError('closed', `python instance ${this.name} closed before it started`);
    }
    this.proc = proc;
    const { toPy, toPyAtOnce, fromPy, stdout, stderr } = proc.pipes;
    this.toPy = toPy;
    this.toPyAtOnce = toPyAtOnce;
    for (const w of [toPy, toPyAtOnce])
      w.on('error', () => {
        /* the exit handler reports a dead process */
      });
    const limits = this.spec.limits;
    const regions = (this.regions = TensorRegions.open(
      this.spec.shmDir ?? '/dev/shm',
      this.name,
      regionMaxBytes(limits?.maxBodyBytes),
    ));
    const reader = new FrameReader(frameCheck(limits), limits?.maxBodyBytes);
    followStubFrames(
      fromPy,
      reader,
      regions,
      (f) => this.onFrame(f),
      (frame) => writeFrame(toPyAtOnce, frame),
      (why) => {
        this.died(proc, why);
        proc.kill('SIGKILL');
      },
    );
    stdout?.on('data', (c: Buffer) => this.lines.push('info', c));
    stderr.on('data', (c: Buffer) => this.lines.push('error', c));
    // As Triton's load, one waiting on `initialize` fails when the stub stops being scheduled, however long
    // `initialize` itself may take.
    const health = watchStubHealth(proc.pid, () => this.unhealthy(proc));
    const loaded = new Promise<LoadInfo>((resolve, reject) => {
      this.loading = { resolve: (r) => resolve({ ...r, warmupMs: performance.now() - t0 }), reject, stderr: [] };
      proc.onExit((code, signal) => {
        const died = () => this.died(proc, `exited (${signal ?? `code ${code}`})`);
        // Exited while loading: its traceback says why, and may still be on its way.
        if (this.loading) afterStderr(stderr, died);
        else died();
      });
      this.send({
        type: 'init',
        model_file: this.spec.modelFile,
        args: initArgs(this.spec, this.name),
        limits: limits ?? null,
        shm: regions.initField(),
      });
    });
    return loaded.finally(() => health.stop());
  }

  request(body: PyExecute, _transfer: ArrayBuffer[], freed?: () => void): Promise<PyExecuteResult> {
    if (this.state !== 'ready')
      return Promise.reject(new EngineError('instance-crashed', `model instance ${this.name} is not running`));
    return new Promise<PyExecuteResult>((resolve, reject) => {
      const { id, p } = this.executes.open(body, resolve, reject);
      if (freed) p.freed = freed;
      if (body.signal) {
        p.onAbort = () => this.cancelled(id, p);
        body.signal.addEventListener('abort', p.onAbort, { once: true });
      }
      const w = new FrameWriter(this.regions.place);
      const requests = executeRequests(w, body);
      p.placed = w.placed;
      writeFrame(this.toPy, w.finish({ type: 'execute', id, requests }));
    });
  }

  /** The run gave up on this execute: tell `execute` (is_cancelled); kill the process if `execute` never returns, or drop the request if it returned and never sent its final response. */
  private cancelled(id: number, p: PendingExecute): void {
    writeFrame(this.toPyAtOnce, new FrameWriter().finish({ type: 'cancel', id }));
    // Its BLS calls end with it, so that a chain of models waiting on each other unwinds from the cancelled end
    // instead of living on in the models' queues: those naming it, and those naming no execute (made from a thread
    // the model started) when it is the only one running and has not returned.
    this.blsCalls.abortExecute(id, !p.returned && this.executes.running === 1);
    p.killTimer = setTimeout(() => {
      if (!this.executes.has(id) || !this.proc) return;
      // execute returned and the process serves other requests: only this one's late responses are given up.
      if (p.returned) return this.executes.drop(id, abortError(p.body.signal!));
      this.died(
        this.proc,
        `did not return from execute within ${this.spec.stuckKillMs ?? 2000} ms after its request was cancelled, so it was stopped`,
      );
      this.proc.kill('SIGKILL');
    }, this.spec.stuckKillMs ?? 2000);
    p.killTimer.unref?.();
  }

  private onFrame(f: Frame): void {
    const h = f.header;
    switch (h.type) {
      case 'ready':
        return this.loaded(h);
      case 'failed':
        return this.failed(h);
      case 'finalized':
        return this.closing?.();
      case 'log':
        return this.lines.line(h.level as LogLevel, String(h.message));
      case 'response':
        return this.executes.response(f);
      case 'executed':
        return this.executes.executed(h);
      case 'bls':
        return this.blsCalls.start(f);
      case 'bls_cancel':
        return this.blsCalls.cancel(f.header.call);
      case 'metric':
        return this.metric(h);
    }
  }

  /** A `pb_utils.MetricFamily` or `Metric` of the model's, or a change to one, for the server's /metrics. */
  private metric(h: Record<string, unknown>): void {
    // A frame read after the instance ended (and let its metrics go) would make a series no one releases.
    if (this.state === 'dead' || this.state === 'closed') return;
    const why = this.spec.metrics?.apply(this, h);
    // Through the log's rate limit: a model changing a refused metric per request would otherwise flood the log.
    if (why) this.lines.line('error', `model '${this.spec.model}': custom metric refused: ${why}`);
  }

  private loaded(h: Record<string, unknown>): void {
    this.regions.opened(h.shm === true);
    const l = this.loading;
    this.loading = undefined;
    this.state = 'ready';
    l?.resolve({ provider: 'python', failures: [] });
  }

  private failed(h: Record<string, unknown>): void {
    const message = withTraceback(String(h.message), h.traceback);
    const l = this.loading;
    if (l) this.regions.close();
    if (!l) {
      // `finalize` raised: Triton logs it and goes on ending the stub.
      this.logged('error', message);
      return this.closing?.();
    }
    this.loading = undefined;
    this.state = 'dead';
    this.spec.metrics?.release(this);
    this.proc?.kill('SIGKILL');
    l.reject(new EngineError('model-unavailable', `model '${this.spec.model}' failed to initialize: ${message}`));
  }

  /** The stub stayed stopped while its `initialize` was awaited: the load fails as Triton's does, and it is killed. */
  private unhealthy(proc: StubChild): void {
    const l = this.loading;
    if (this.proc !== proc || !l) return;
    this.loading = undefined;
    this.state = 'dead';
    this.lines.flush();
    this.regions.close();
    this.spec.metrics?.release(this);
    proc.kill('SIGKILL');
    l.reject(
      new EngineError(
        'model-unavailable',
        `Stub process '${tritonInstanceName(this.spec.model, this.name)}' is not healthy.`,
      ),
    );
  }

  private logged(level: LogLevel, message: string): void {
    this.spec.log?.(this.name, level, message);
    if (this.loading && level !== 'verbose') this.loading.stderr.push(message);
    this.executes.log(level, message, this.name);
  }

  private send(header: Record<string, unknown>): void {
    writeFrame(this.toPy, new FrameWriter().finish(header));
  }

  /**
   * While the stub has requests, its health is watched as Triton's backend watches it while it waits on a reply: a
   * stub stopped for `SERVING_HEALTH_MS` fails its requests with Triton's words and is killed, then restarted as
   * after a crash (this python_backend version leaves it in place, failing every request after a second's wait).
   */
  private watchServing(busy: boolean): void {
    const proc = this.proc;
    if (!busy || !proc || this.state !== 'ready') return this.servingHealth(undefined);
    this.servingHealth(proc.pid, () => {
      // Ended as a crash is (its exit runs `died`), with Triton's words for its requests.
      this.unhealthyWhy = `Stub process '${tritonInstanceName(this.spec.model, this.name)}' is not healthy.`;
      proc.kill('SIGKILL');
    });
  }

  private died(proc: StubChild, why: string): void {
    if (this.proc !== proc || this.state === 'dead' || this.state === 'closed') return;
    this.lines.flush();
    this.regions.close();
    this.spec.metrics?.release(this);
    const closing = this.closing !== undefined;
    this.state = closing ? 'closed' : 'dead';
    this.closing?.();
    if (this.loading) {
      const l = this.loading;
      this.loading = undefined;
      l.reject(new EngineError('model-unavailable', loadProblem(this.spec.python, why, l.stderr)));
      return;
    }
    this.blsCalls.abortAll();
    const unhealthy = this.unhealthyWhy;
    this.unhealthyWhy = undefined;
    const err = new EngineError(
      'instance-crashed',
      unhealthy ??
        `model instance ${this.name} (python) ${why}; its in-flight requests failed and it is being restarted`,
    );
    this.executes.failAll(closing ? new EngineError('closed', 'the engine is shutting down') : err);
    if (!closing) this.onCrash(this, err);
  }

  crash(): void {
    this.proc?.kill('SIGKILL');
  }

  /** Runs `finalize()` (up to 5 s), then ends the process. */
  async close(): Promise<void> {
    const proc = this.proc;
    if (!proc || this.state === 'dead' || this.state === 'closed') {
      this.state = 'closed';
      this.spec.metrics?.release(this);
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      this.closing = () => {
        clearTimeout(timer);
        resolve();
      };
      proc.onExit(() => this.closing?.());
      if (this.state !== 'ready') {
        proc.kill('SIGKILL');
        return;
      }
      this.send({ type: 'finalize' });
      // As Triton's unload, a stub that is not healthy is killed rather than waited for.
      const health = watchStubHealth(proc.pid, () => proc.kill('SIGKILL'), SERVING_HEALTH_MS);
      proc.onExit(() => health.stop());
    });
    this.state = 'closed';
    proc.kill('SIGKILL');
    this.regions.close();
    this.spec.metrics?.release(this);
  }
}
