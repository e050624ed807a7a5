import { isObj } from '@ensemble-studio/core';
import { NAMED_OVERRIDES } from '../grpc/repositoryRequests.ts';
import { badRequest } from './errors.ts';

// Pure: runs on the main thread for small bodies and in the body worker for large ones (bodyParser.ts), so a
// repository request of megabytes (an index asked with 30 MB of padding, a load with thousands of parameters) is
// not parsed where every other client waits.

/**
 * What Triton's repository endpoints (`POST /v2/repository/index`, `…/models/{m}/load`, `…/unload`) read of their
 * body, taken from the JSON so that only this crosses from the worker.
 */
export interface RepositoryBody {
  /** `ready` as sent: undefined when absent, 'other' when it is not a boolean. */
  ready: boolean | undefined | 'other';
  /**
   * `parameters`: absent, not an object, or what a load reads of its members: the first problem in their order (a
   * value that is not a string, or a key neither `config` nor `file:…`), the first NAMED_OVERRIDES keys and the count.
   */
  parameters: undefined | 'not-object' | { problem?: 'not-string' | 'unknown-key'; named: string[]; count: number };
  /** `parameters.unload_dependents` is JSON `true`. */
  unloadDependents: boolean;
}

/**
 * The fields of a repository request body: none when the body is empty or JSON that is not an object (Triton looks its
 * members up only in an object, so such a body asks for nothing).
 * @throws ApiError 400 when the body is not JSON.
 * @example readRepositoryBody(Buffer.from('{"ready":true}')).ready === true
 */
export function readRepositoryBody(bytes: Uint8Array): RepositoryBody {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8').trim();
  let parsed: unknown = {};
  if (raw !== '') {
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw badRequest(`the request body is not JSON: ${(err as Error).message}`);
    }
  }
  const body = isObj(parsed) ? parsed : {};
  const ready = Object.hasOwn(body, 'ready') ? body.ready : undefined;
  const params = Object.hasOwn(body, 'parameters') ? body.parameters : undefined;
  return {
    ready: ready === undefined || typeof ready === 'boolean' ? ready : 'other',
    parameters: params === undefined ? undefined : isObj(params) ? loadParameters(params) : 'not-object',
    unloadDependents: isObj(params) && Object.hasOwn(params, 'unload_dependents') && params.unload_dependents === true,
  };
}

/** A load's parameters as the route checks them (Triton's order: each member's value, then its key). */
function loadParameters(params: Record<string, unknown>): Exclude<RepositoryBody['parameters'], string | undefined> {
  const keys = Object.keys(params);
  let problem: 'not-string' | 'unknown-key' | undefined;
  for (const key of keys) {
    if (typeof params[key] !== 'string') problem = 'not-string';
    else if (key !== 'config' && !key.startsWith('file:')) problem = 'unknown-key';
    if (problem) break;
  }
  return { ...(problem ? { problem } : {}), named: keys.slice(0, NAMED_OVERRIDES), count: keys.length };
}
