import { isDataType } from '../tensor/dtype.ts';
import { elementCount } from '../tensor/tensor.ts';
import type { ClientMessage, WireTensor } from './messages.ts';

export type MessageCheck = { ok: true; message: ClientMessage } | { ok: false; error: string; ref?: string };

export interface MessageLimits {
  /** Largest element count of one tensor (the limit is named in the error). */
  maxTensorElements?: number;
}

const CLIENT_TYPES = ['run.start', 'run.cancel', 'stream.open', 'stream.append', 'stream.end', 'ping'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A wire tensor's problem, or undefined when it is well formed. */
export function checkWireTensor(name: string, v: unknown, limits: MessageLimits = {}): string | undefined {
  if (!isObj(v)) return `input "${name}" must be an object {datatype, shape, data}`;
  if (!isDataType(v.datatype)) return `input "${name}" has unknown datatype ${JSON.stringify(v.datatype)}`;
  if (!Array.isArray(v.shape) || !v.shape.every((d) => Number.isInteger(d) && (d as number) >= 0)) {
    return `input "${name}" shape must be an array of non-negative integers`;
  }
  const n = elementCount(v.shape as number[]);
  if (limits.maxTensorElements !== undefined && n > limits.maxTensorElements) {
    return `input "${name}" has ${n} elements, over the limit maxTensorElements=${limits.maxTensorElements}`;
  }
  const hasData = v.data !== undefined;
  const hasBinary = v.binary !== undefined;
  if (hasData === hasBinary) return `input "${name}" needs exactly one of data or binary`;
  if (hasBinary)
    return Number.isInteger(v.binary) && (v.binary as number) >= 0
      ? undefined
      : `input "${name}" binary must be a frame index ≥ 0`;
  if (!Array.isArray(v.data)) return `input "${name}" data must be a flat array`;
  if (v.data.length !== n)
    return `input "${name}" has ${v.data.length} elements but shape [${(v.shape as number[]).join(',')}] needs ${n}`;
  return checkElements(name, v.datatype, v.data);
}

function checkElements(name: string, datatype: WireTensor['datatype'], data: unknown[]): string | undefined {
  const ok =
    datatype === 'BYTES'
      ? (x: unknown) => typeof x === 'string'
      : datatype === 'BOOL'
        ? (x: unknown) => typeof x === 'boolean' || x === 0 || x === 1
        : (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  const bad = data.findIndex((x) => !ok(x));
  return bad < 0 ? undefined : `input "${name}" element ${bad} is not a valid ${datatype} value`;
}

function checkInputs(v: unknown, limits: MessageLimits): string | undefined {
  if (!isObj(v)) return 'inputs must be an object of named tensors';
  for (const [name, t] of Object.entries(v)) {
    const err = checkWireTensor(name, t, limits);
    if (err) return err;
  }
  return undefined;
}

function checkGraphRef(v: unknown): string | undefined {
  if (typeof v === 'string') return v.length > 0 && v.length <= 256 ? undefined : 'graph name must be 1–256 characters';
  if (isObj(v) && typeof v.name === 'string' && Array.isArray(v.nodes) && Array.isArray(v.edges)) return undefined;
  return 'graph must be a saved graph name or a graph document {name, nodes, edges}';
}

const nonEmpty = (field: string, v: unknown) =>
  typeof v === 'string' && v.length > 0 && v.length <= 128
    ? undefined
    : `${field} must be a string of 1–128 characters`;
const isSeqId = (v: unknown) =>
  v === undefined || (typeof v === 'number' && Number.isInteger(v)) || (typeof v === 'string' && v.length <= 128);

function checkFields(m: Obj, limits: MessageLimits): string | undefined {
  switch (m.type as (typeof CLIENT_TYPES)[number]) {
    case 'run.start':
      return (
        nonEmpty('requestId', m.requestId) ??
        checkGraphRef(m.graph) ??
        checkInputs(m.inputs, limits) ??
        (m.timeoutMs === undefined || (typeof m.timeoutMs === 'number' && m.timeoutMs > 0)
          ? undefined
          : 'timeoutMs must be a positive number') ??
        (m.exported === undefined || typeof m.exported === 'boolean' ? undefined : 'exported must be a boolean')
      );
    case 'run.cancel':
      return nonEmpty('runId', m.runId);
    case 'stream.open':
      return (
        nonEmpty('streamId', m.streamId) ??
        checkGraphRef(m.graph) ??
        (isSeqId(m.sequenceId) ? undefined : 'sequenceId must be an integer or a string of at most 128 characters')
      );
    case 'stream.append':
      return (
        nonEmpty('streamId', m.streamId) ??
        checkInputs(m.inputs, limits) ??
        (m.end === undefined || typeof m.end === 'boolean' ? undefined : 'end must be a boolean')
      );
    case 'stream.end':
      return nonEmpty('streamId', m.streamId);
    case 'ping':
      return typeof m.at === 'number' ? undefined : 'at must be a number';
  }
}

/**
 * Checks that an untrusted value (parsed WebSocket JSON) is a well-formed `ClientMessage`: known `type`,
 * required fields with the right types, tensors whose data matches their shape and dtype.
 * The error names the problem; `ref` is the message's requestId/streamId/runId when one was readable.
 * @example validateClientMessage({ type: 'ping', at: 1 }) // { ok: true, message: … }
 */
export function validateClientMessage(value: unknown, limits: MessageLimits = {}): MessageCheck {
  if (!isObj(value)) return { ok: false, error: 'message must be a JSON object' };
  const ref = [value.requestId, value.streamId, value.runId].find((x): x is string => typeof x === 'string');
  if (typeof value.type !== 'string') return { ok: false, error: 'message has no "type"', ref };
  if (!(CLIENT_TYPES as readonly string[]).includes(value.type)) {
    return {
      ok: false,
      error: `unknown message type "${value.type.slice(0, 64)}" (expected one of ${CLIENT_TYPES.join(', ')})`,
      ref,
    };
  }
  const err = checkFields(value, limits);
  return err
    ? { ok: false, error: `${value.type}: ${err}`, ref }
    : { ok: true, message: value as unknown as ClientMessage };
}
