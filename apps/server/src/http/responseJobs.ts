import type { Tensor } from '@ensemble-studio/core';
import { decodedBytes, type EncodedBytes } from './classification.ts';
import { outputJson, tritonJsonText } from './kserveTensors.ts';

// Writing a large infer response as JSON, done in the body worker: `python_text_detect` answering a 2300×2300 page
// (its 5.3 M-element probability map as JSON numbers) held the main thread ~600 ms while no other client was answered.

/** JSON elements of a response above which it is written in the worker: a JSON number takes ~16 bytes, so ~1 MiB. */
export const INLINE_JSON_ELEMENTS = 64 * 1024;

/**
 * An output to write as JSON (`[name, tensor]`; a classification made in the worker as its wire bytes), or one
 * already described (a binary output's entry).
 */
export type ResponseOutput = [string, Tensor | EncodedBytes] | Record<string, unknown>;

/**
 * A response to write as JSON: what precedes its outputs, its outputs, and its form (`/infer`'s, `/generate`'s, or
 * `/generate`'s as one `generate_stream` event).
 */
export interface ResponseJob {
  kind: 'response';
  form: 'infer' | 'generate' | 'event';
  head: Record<string, unknown>;
  outputs: ResponseOutput[];
}

/**
 * The response's JSON text as UTF-8 bytes, as the main thread writes it: `/infer`'s with `tritonJsonText` (NaN and
 * Infinity as bare tokens), `/generate`'s (each output under its name, one element as a scalar) with `JSON.stringify`,
 * and an event as `generate_stream` sends it (`data: {json}` and a blank line).
 * @example responseBytes({ kind: 'response', form: 'infer', head: { model_name: 'm' }, outputs: [['y', t]] })
 */
export function responseBytes(job: ResponseJob): Uint8Array {
  if (job.form === 'generate') return Buffer.from(JSON.stringify(generateBody(job.head, job.outputs)));
  if (job.form === 'event') return Buffer.from(generateEvent(job.head, job.outputs));
  const outputs = job.outputs.map((o) => (Array.isArray(o) ? outputJson(o[0], decodedBytes(o[1])) : o));
  return Buffer.from(tritonJsonText({ ...job.head, outputs }));
}

/**
 * A `/generate` response: `head`, then each output's data under its name (a one-element output as a scalar).
 * @example generateBody({ model_name: 'm' }, [['y', t]]) // { model_name: 'm', y: [1, 2] }
 */
export function generateBody(head: Record<string, unknown>, outputs: ResponseOutput[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...head };
  for (const o of outputs) {
    if (!Array.isArray(o)) continue;
    const data = outputJson(o[0], decodedBytes(o[1])).data;
    out[o[0]] = data.length === 1 ? data[0] : data;
  }
  return out;
}

/**
 * One `generate_stream` event (Server-Sent Events): the `/generate` body of one response after `data: `, then a blank line.
 * @example generateEvent({ model_name: 'm' }, [['y', t]]) // 'data: {"model_name":"m","y":[1,2]}\n\n'
 */
export function generateEvent(head: Record<string, unknown>, outputs: ResponseOutput[]): string {
  return `data: ${JSON.stringify(generateBody(head, outputs))}\n\n`;
}
