import type { ClientMessage, Tensor, WireTensor } from '@ensemble-studio/core';
import { keyedRecord, validateClientMessage } from '@ensemble-studio/core';
import { ApiError } from '../http/errors.ts';
import { limitMessage } from '../http/limits.ts';
import { decodeWireTensors } from './wireTensors.ts';

// Pure: runs on the main thread for small messages and in the body worker for large ones.

/** The limits a text message is held to while it is parsed. */
export interface TextLimits {
  maxTensorElements: number;
  maxGraphNodes: number;
  maxGraphEdges: number;
}

/**
 * Why an inline graph document is over the graph limits (undefined when it is not): checked where the
 * message is parsed, so a huge document is never copied to the main thread to be refused there.
 */
function graphTooBig(message: ClientMessage, limits: TextLimits): string | undefined {
  if (
    (message.type !== 'run.start' && message.type !== 'stream.open') ||
    typeof message.graph !== 'object' ||
    message.graph === null
  )
    return undefined;
  const g = message.graph as { nodes?: unknown; edges?: unknown };
  const nodes = Array.isArray(g.nodes) ? g.nodes.length : 0;
  const edges = Array.isArray(g.edges) ? g.edges.length : 0;
  if (nodes > limits.maxGraphNodes)
    return limitMessage(`inline graph has ${nodes} nodes`, 'maxGraphNodes', limits.maxGraphNodes);
  if (edges > limits.maxGraphEdges)
    return limitMessage(`inline graph has ${edges} edges`, 'maxGraphEdges', limits.maxGraphEdges);
  return undefined;
}

/** The code of a text message that is not UTF-8: the connection is closed with 1007, as the WebSocket server closes it. */
export const INVALID_UTF8 = 'invalid-utf8';
export const INVALID_UTF8_REASON = 'invalid UTF-8 sequence';

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
export function parseClientText(data: Uint8Array, limits: TextLimits): ParsedText {
  const { maxTensorElements } = limits;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
  } catch (err) {
    return {
      ok: false,
      code: 'bad-json',
      message: `message is not valid JSON: ${(err as Error).message.slice(0, 200)}`,
    };
  }
  const check = validateClientMessage(parsed, { maxTensorElements });
  if (!check.ok)
    return {
      ok: false,
      code: 'bad-message',
      message: check.error,
      ...(check.ref === undefined ? {} : { ref: check.ref }),
    };
  const message = check.message;
  const tooBig = graphTooBig(message, limits);
  if (tooBig)
    return {
      ok: false,
      code: 'limit',
      message: tooBig,
      ref: message.type === 'run.start' ? message.requestId : (message as { streamId: string }).streamId,
    };
  if (message.type !== 'run.start' && message.type !== 'stream.append')
    return { ok: true, message, decoded: keyedRecord<Tensor>() };
  const ref = message.type === 'run.start' ? message.requestId : message.streamId;
  // A graph has at most maxGraphNodes nodes, so no more inputs: more are refused before any is decoded.
  const count = Object.keys(message.inputs).length;
  if (count > limits.maxGraphNodes)
    return {
      ok: false,
      code: 'limit',
      message: limitMessage(`${message.type} has ${count} inputs`, 'maxGraphNodes', limits.maxGraphNodes),
      ref,
    };
  const jsonInputs = keyedRecord<WireTensor>();
  for (const [name, w] of Object.entries(message.inputs)) if (w.binary === undefined) jsonInputs[name] = w;
  try {
    const decoded = decodeWireTensors(jsonInputs, []);
    const inputs = keyedRecord<WireTensor>();
    for (const [name, w] of Object.entries(message.inputs))
      inputs[name] = w.binary === undefined ? { ...w, data: [] } : w;
    return { ok: true, message: { ...message, inputs }, decoded };
  } catch (err) {
    return { ok: false, code: err instanceof ApiError ? err.code : 'bad-input', message: (err as Error).message, ref };
  }
}
