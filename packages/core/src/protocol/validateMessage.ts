import * as v from 'valibot';
import { isObj } from '../schema/fields.ts';
import { issueMessage } from '../schema/issues.ts';
import { clientMessageSchemas, type ClientMessage } from './messageSchema.ts';

export type MessageCheck = { ok: true; message: ClientMessage } | { ok: false; error: string; ref?: string };

export interface MessageLimits {
  /** Largest element count of one tensor (the limit is named in the error). */
  maxTensorElements?: number;
}

type Schemas = ReturnType<typeof clientMessageSchemas>;
// One set of schemas per limit value: a server runs with one or two, and building them per message would cost.
const schemasByLimit = new Map<number | undefined, Schemas>();

function schemasFor(maxTensorElements: number | undefined): Schemas {
  let schemas = schemasByLimit.get(maxTensorElements);
  if (!schemas) schemasByLimit.set(maxTensorElements, (schemas = clientMessageSchemas(maxTensorElements)));
  return schemas;
}

const CLIENT_TYPES = Object.keys(clientMessageSchemas()) as (keyof Schemas)[];

/**
 * Checks that an untrusted value (parsed WebSocket JSON) is a well-formed `ClientMessage`: known `type`,
 * required fields with the right types, tensors whose data matches their shape and dtype. Returns the
 * message as read (fields the protocol does not have are dropped). The error names the message type, the
 * field's path and what was expected; `ref` is the message's requestId/streamId/runId when one was readable.
 * @example validateClientMessage({ type: 'ping', at: 1 }) // { ok: true, message: … }
 */
export function validateClientMessage(value: unknown, limits: MessageLimits = {}): MessageCheck {
  if (!isObj(value)) return { ok: false, error: 'message must be a JSON object' };
  const ref = [value.requestId, value.streamId, value.runId].find((x): x is string => typeof x === 'string');
  const type = value.type;
  if (typeof type !== 'string') return { ok: false, error: 'message has no "type"', ref };
  if (!(CLIENT_TYPES as string[]).includes(type)) {
    return {
      ok: false,
      error: `unknown message type "${type.slice(0, 64)}" (expected one of ${CLIENT_TYPES.join(', ')})`,
      ref,
    };
  }
  const schema: v.GenericSchema<unknown, ClientMessage> = schemasFor(limits.maxTensorElements)[type as keyof Schemas];
  const r = v.safeParse(schema, value, { abortEarly: true });
  return r.success
    ? { ok: true, message: r.output }
    : { ok: false, error: `${type}: ${issueMessage(r.issues[0], 'message')}`, ref };
}
