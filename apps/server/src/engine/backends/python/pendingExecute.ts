import type { Tensor } from '@ensemble-studio/core';
import { ModelError } from '../../errors.ts';
import { frameTensors, type Frame } from './frames.ts';
import type { PyExecute, PyExecuteResult, PyRequestResult } from './pythonTypes.ts';

/**
 * One `execute` sent to a stub, from its frame until `executed` has come and every request has had its final
 * response: what each request got so far, and the promise that waits for all of it.
 * @example const p = new PendingExecute(body, resolve, reject); p.response(frame); if (p.done) p.finish()
 */
export class PendingExecute {
  private results: (PyRequestResult | undefined)[];
  private readonly responses: Record<string, Tensor>[][];
  private readonly streamed: number[];
  /** `execute` returned (or raised): the instance may take its next execute while responses still come. */
  returned = false;
  private readonly startedAt = process.hrtime.bigint();
  /** When the model's `execute` began and returned, as the stub timed it. */
  private span: [number, number] | undefined;
  /** Node-region offsets of this execute's inputs, free again once the stub has read them. */
  placed: number[] = [];
  onAbort?: () => void;
  /** Tells the pool that the instance is free (`execute` returned). */
  freed?: () => void;
  killTimer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly body: PyExecute,
    private readonly resolve: (r: PyExecuteResult) => void,
    readonly reject: (e: Error) => void,
  ) {
    const n = body.requests.length;
    this.results = new Array<PyRequestResult | undefined>(n).fill(undefined);
    this.responses = body.requests.map(() => []);
    this.streamed = new Array<number>(n).fill(0);
  }

  /** Records a `response` frame: its outputs go to the request's sink or are kept; `final` ends the request. */
  response(f: Frame): void {
    const h = f.header;
    const k = Number(h.request);
    if (!(k >= 0 && k < this.results.length) || this.results[k]) return;
    const err = h.error as { message?: string } | null;
    if (err) {
      this.results[k] = { ok: false, error: new ModelError(String(err.message ?? 'the model returned an error')) };
    } else if (h.outputs) {
      const outputs = frameTensors(f, 'outputs');
      const sink = this.body.requests[k]!.onResponse;
      try {
        if (sink) {
          this.streamed[k]!++;
          sink(outputs, h.final === true);
        } else this.responses[k]!.push(outputs);
      } catch (e) {
        this.results[k] = { ok: false, error: e as Error };
      }
    }
    if (h.final === true && !this.results[k])
      this.results[k] = { ok: true, responses: this.responses[k]!, streamed: this.streamed[k]! };
  }

  /** Records `executed`: with an error, every request not yet final fails with it. */
  markExecuted(err: { message?: string; traceback?: string } | null, span?: [number, number]): void {
    this.returned = true;
    this.span = span;
    if (!err) return;
    const error = new ModelError(String(err.message), typeof err.traceback === 'string' ? err.traceback : undefined);
    this.results = this.results.map((r) => r ?? { ok: false, error });
  }

  /** `executed` came and every request is final. */
  get done(): boolean {
    return this.returned && this.results.every((r) => r !== undefined);
  }

  /** Resolves the execute's promise with what its requests got (once `done`). */
  finish(): void {
    const r: PyExecuteResult = {
      results: this.results as PyRequestResult[],
      computeNs: Number(process.hrtime.bigint() - this.startedAt),
    };
    if (this.span) [r.inferStartNs, r.inferEndNs] = this.span;
    this.resolve(r);
  }
}
