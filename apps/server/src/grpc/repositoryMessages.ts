import { status } from '@grpc/grpc-js';
import { inferenceService } from './loadService.ts';
import {
  checkLoadParameters,
  refuseRepositoryName,
  unloadDependents,
  type RepositoryRequest,
} from './repositoryRequests.ts';

// grpc-js decodes a message on the main thread before its handler runs: a RepositoryModelLoad of 300,000 `file:`
// parameters (5 MB) held every client 3.5-5 s there. Such messages over INLINE_DECODE_BYTES are left as bytes
// (deferredRequests.ts) and read here, in the body worker, which sends back only what the handlers use.

/** The repository RPCs whose messages carry a parameters map (the others hold names only). */
export type RepositoryMethod = 'RepositoryModelLoad' | 'RepositoryModelUnload';

/** A gRPC refusal as a plain value (it crosses from the worker): the status code and its details. */
type Refusal = { code: status; details: string };

/** A repository message read in the worker: the request with its parameters already checked, or its refusal. */
export type ReadRepositoryMessage = { request: RepositoryRequest } | { refusal: Refusal };

/**
 * Decodes a repository message and runs the checks its handler runs before acting (the repository name, then a load's
 * parameters, or an unload's `unload_dependents`), in the handler's order and words. What comes back holds the model's
 * name and, for an unload, `unload_dependents` alone: the parameters' other entries were only checked.
 * @example readRepositoryMessage('RepositoryModelUnload', bytes) // { request: { model_name: 'm', parameters: {} } }
 */
export function readRepositoryMessage(method: RepositoryMethod, bytes: Uint8Array): ReadRepositoryMessage {
  let r: RepositoryRequest;
  try {
    r = inferenceService().service[method]!.requestDeserialize(Buffer.from(bytes)) as RepositoryRequest;
  } catch (err) {
    // grpc-js's own answer to a message it cannot decode.
    return { refusal: { code: status.INTERNAL, details: `Error deserializing request: ${(err as Error).message}` } };
  }
  try {
    refuseRepositoryName(r);
    if (method === 'RepositoryModelLoad') {
      checkLoadParameters(r);
      return { request: { model_name: r.model_name } };
    }
    const dependents = unloadDependents(r);
    return {
      request: {
        model_name: r.model_name,
        parameters: dependents ? { unload_dependents: { parameter_choice: 'bool_param', bool_param: true } } : {},
      },
    };
  } catch (err) {
    const { code, details } = err as Refusal;
    return { refusal: { code, details } };
  }
}
