import type { Tensor } from '@ensemble-studio/core';
import { copyData } from '../engine/tensorTransfer.ts';
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
