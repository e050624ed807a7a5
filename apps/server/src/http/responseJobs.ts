import type { Tensor } from '@ensemble-studio/core';
import { outputJson, tritonJsonText } from './kserveTensors.ts';

// Writing a large infer response as JSON, done in the body worker: `python_text_detect` answering a 2300×2300 page
// (its 5.3 M-element probability map as JSON numbers) held the main thread ~600 ms while no other client was answered.

/** JSON elements of a response above which it is written in the worker: a JSON number takes ~16 bytes, so ~1 MiB. */
export const INLINE_JSON_ELEMENTS = 64 * 1024;

/** An output to write as JSON (`[name, tensor]`), or one already described (a binary output's entry). */
export type ResponseOutput = [string, Tensor] | Record<string, unknown>;

/** An infer response to write as JSON: what precedes its outputs, and its outputs. */
export interface ResponseJob {
  kind: 'response';
  head: Record<string, unknown>;
  outputs: ResponseOutput[];
}

/**
 * The response's JSON text as UTF-8 bytes, as `tritonJsonText` writes it (NaN and Infinity as bare tokens).
 * @example responseBytes({ kind: 'response', head: { model_name: 'm' }, outputs: [['y', t]] })
 */
export function responseBytes(job: ResponseJob): Uint8Array {
  const outputs = job.outputs.map((o) => (Array.isArray(o) ? outputJson(o[0], o[1]) : o));
  return Buffer.from(tritonJsonText({ ...job.head, outputs }));
}
