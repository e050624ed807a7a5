import type { ClientMessage, Tensor, WireTensor } from '@ensemble-studio/core';
import { keyedRecord, validateClientMessage } from '@ensemble-studio/core';
import { ApiError } from '../http/errors.ts';
import { decodeWireTensors } from './wireTensors.ts';

// Pure: runs on the main thread for small messages and in the body worker for large ones.

/** A client text message, parsed and validated, with its JSON-data inputs already decoded to tensors. */
export type ParsedText =
  | { ok: true; message: ClientMessage; decoded: Record<string, Tensor> }
  | { ok: false; code: string; message: string; ref?: string };

/**
 * Parses one WebSocket text message: JSON, protocol validation (with the tensor element limit), and
 * the inputs that carry JSON `data` decoded and checked (binary-frame inputs are decoded when their
 * frames arrive). The decoded inputs' `data` is dropped from the message, so it is not copied twice.
 * @example parseClientText(Buffer.from('{"type":"ping","at":1}'), 1e6)
 */
export function parseClientText(data: Uint8Array, maxTensorElements: number): ParsedText {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch (err) {
    return { ok: false, code: 'bad-json', message: `message is not valid JSON: ${(err as Error).message.slice(0, 200)}` };
  }
  const check = validateClientMessage(parsed, { maxTensorElements });
  if (!check.ok) return { ok: false, code: 'bad-message', message: check.error, ...(check.ref === undefined ? {} : { ref: check.ref }) };
  const message = check.message;
  if (message.type !== 'run.start' && message.type !== 'stream.append') return { ok: true, message, decoded: keyedRecord<Tensor>() };
  const ref = message.type === 'run.start' ? message.requestId : message.streamId;
  const jsonInputs = keyedRecord<WireTensor>();
  for (const [name, w] of Object.entries(message.inputs)) if (w.binary === undefined) jsonInputs[name] = w;
  try {
    const decoded = decodeWireTensors(jsonInputs, []);
    const inputs = keyedRecord<WireTensor>();
    for (const [name, w] of Object.entries(message.inputs)) inputs[name] = w.binary === undefined ? { ...w, data: [] } : w;
    return { ok: true, message: { ...message, inputs }, decoded };
  } catch (err) {
    return { ok: false, code: err instanceof ApiError ? err.code : 'bad-input', message: (err as Error).message, ref };
  }
}
