import type { Tensor } from '@ensemble-studio/core';
import { frameTensors, FrameWriter, type Frame } from './frames.ts';
import type { BlsHandler } from './pythonTypes.ts';
import { logRequest } from '../../logRequest.ts';
import { parseParams } from './processProblems.ts';

/**
 * The BLS calls one instance's model has in flight (`pb_utils.InferenceRequest.exec` in `model.py`): each runs
 * through the engine's handler and is answered with `bls_response` frames, written by `reply` (fd 5, which the
 * stub reads while its model thread waits).
 * @example const calls = new BlsCalls({ model: 'm', instance: 'm_0' }, spec.bls, (b) => write(fd5, b), () => ready)
 */
export class BlsCalls {
  /** By the call id the model chose, with the execute that made it when the stub named one. */
  private readonly calls = new Map<unknown, { abort: AbortController; execute: unknown }>();

  constructor(
    private readonly caller: { model: string; instance: string },
    private readonly handler: BlsHandler,
    private readonly reply: (frame: Buffer[]) => void,
    /** False once the instance stops serving: answers that come later are dropped. */
    private readonly serving: () => boolean,
  ) {}

  /** Starts the call a `bls` frame asks for. */
  start(f: Frame): void {
    const h = f.header;
    const call = h.call;
    const abort = new AbortController();
    this.calls.set(call, { abort, execute: h.execute });
    let ended = false;
    const answer = (outputs: Record<string, Tensor>, error: string | undefined, final: boolean) => {
      if (ended || !this.serving()) return;
      ended = final;
      if (final) this.calls.delete(call);
      const w = new FrameWriter();
      const described = w.tensors(Object.entries(outputs));
      this.reply(
        w.finish({
          type: 'bls_response',
          call,
          outputs: described,
          error: error === undefined ? null : { message: error },
          final,
        }),
      );
    };
    try {
      const dup = duplicateName(h.inputs);
      const requestId = typeof h.request_id === 'string' ? h.request_id : '';
      if (dup !== undefined)
        return answer({}, `${logRequest(requestId)}input '${dup}' already exists in request`, true);
      this.handler(
        {
          model: String(h.model_name),
          version: Number(h.model_version ?? -1),
          inputs: frameTensors(f, 'inputs'),
          requestedOutputs: Array.isArray(h.requested_output_names) ? h.requested_output_names.map(String) : [],
          requestId,
          correlationId: (h.correlation_id as number | string) ?? 0,
          flags: Number(h.flags ?? 0),
          timeoutUs: Number(h.timeout ?? 0),
          parameters: parseParams(h.parameters),
          decoupled: h.decoupled === true,
          caller: this.caller,
          signal: abort.signal,
        },
        { response: (o) => answer(o, undefined, false), end: (e) => answer({}, e, true) },
      );
    } catch (err) {
      answer({}, (err as Error).message, true);
    }
  }

  /** The model gave up on call `call` (`bls_cancel`). */
  cancel(call: unknown): void {
    this.calls.get(call)?.abort.abort();
  }

  /** Ends the calls execute `id` made, and with `unnamed`, those that name no execute (made from a model's thread). */
  abortExecute(id: number, unnamed: boolean): void {
    for (const c of this.calls.values()) if (c.execute === id || (unnamed && c.execute === undefined)) c.abort.abort();
  }

  /** Ends every call in flight (the process is gone). */
  abortAll(): void {
    for (const c of this.calls.values()) c.abort.abort();
    this.calls.clear();
  }
}

/** The first tensor name a frame's tensor list repeats (Triton refuses a request that names an input twice). */
function duplicateName(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const seen = new Set<string>();
  for (const t of list as { name?: unknown }[]) {
    const name = String(t.name);
    if (seen.has(name)) return name;
    seen.add(name);
  }
  return undefined;
}
