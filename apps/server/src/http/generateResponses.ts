import type { Tensor } from '@ensemble-studio/core';
import { copyData } from '../engine/tensors.ts';
import type { BodyParser } from './bodyParser.ts';
import { INLINE_JSON_ELEMENTS, generateBody, generateEvent, type ResponseOutput } from './responseJobs.ts';

// A decoupled model may stream responses of millions of numbers each; turning one into JSON held every other
// client for as long as it took (hundreds of milliseconds per response), so large ones are written in the body worker.

/**
 * One response of a generate request as the bytes to send, `/generate`'s body or one `generate_stream` event: made
 * here when it has at most INLINE_JSON_ELEMENTS numbers, else in the body worker. A response that comes during the run
 * (`owned` false) is copied first: its buffers may move on to another node, or to a model's worker, meanwhile.
 * @example const bytes = await generateBytes(studio.bodies, 'event', { model_name: 'm' }, { y: t }, false)
 */
export function generateBytes(
  bodies: BodyParser,
  form: 'generate' | 'event',
  head: Record<string, unknown>,
  outputs: Record<string, Tensor>,
  owned: boolean,
): Uint8Array | Promise<Uint8Array> {
  const entries = Object.entries(outputs);
  const elements = entries.reduce((n, [, t]) => n + t.data.length, 0);
  if (elements <= INLINE_JSON_ELEMENTS)
    return Buffer.from(form === 'event' ? generateEvent(head, entries) : JSON.stringify(generateBody(head, entries)));
  // Strings cannot change under us (the worker gets its own copy when the job is posted, at this call).
  const copies: ResponseOutput[] = owned
    ? entries
    : entries.map(([name, t]) => [
        name,
        { ...t, shape: [...t.shape], data: Array.isArray(t.data) ? t.data : copyData(t.data) } as Tensor,
      ]);
  return bodies.response(form, head, copies, []);
}

/**
 * Writes chunks in the order they were added, each once it is ready (a chunk made in the body worker holds back
 * those after it); a chunk that could not be made stops the ones after it, and `settled` reports it.
 * @example const w = new OrderedWrites((b) => res.write(b)); w.add(bytes); w.add(promised); const failure = await w.settled();
 */
export class OrderedWrites {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private failure: unknown;

  constructor(private readonly write: (bytes: Uint8Array) => void) {}

  /** Writes `bytes` now when nothing is waiting before it, else after what is. */
  add(bytes: Uint8Array | Promise<Uint8Array>): void {
    if (this.failure !== undefined) return;
    if (this.waiting === 0 && !(bytes instanceof Promise)) return this.write(bytes);
    // Awaited in its turn; until then a failure must not count as unhandled.
    if (bytes instanceof Promise) bytes.catch(() => undefined);
    this.waiting++;
    this.tail = this.tail.then(async () => {
      try {
        const ready = await bytes;
        if (this.failure === undefined) this.write(ready);
      } catch (err) {
        this.failure ??= err;
      } finally {
        this.waiting--;
      }
    });
  }

  /** Resolves once every chunk added so far is written, with what stopped them (undefined when nothing did). */
  async settled(): Promise<unknown> {
    await this.tail;
    return this.failure;
  }
}
