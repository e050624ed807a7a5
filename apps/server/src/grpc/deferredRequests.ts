import type { Tensor } from '@ensemble-studio/core';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { ApiError, toApiError } from '../http/errors.ts';
import { findServedModel, type ServedModel } from '../http/servedModels.ts';
import type { Studio } from '../http/Studio.ts';
import { peekModel } from './peekModel.ts';
import { parsedInferRequest, UNPARSABLE, type DecodeLimits } from './decodeInfer.ts';
import type { WireInferRequest } from './grpcTensors.ts';

// grpc-js decodes every message on the main thread before a handler sees it, and protobufjs takes seconds over a
// message of a million small inputs, during which no other client is answered. ModelInfer and ModelStreamInfer
// messages over INLINE_DECODE_BYTES are left as bytes here and decoded in the body worker, as large HTTP bodies are.

/**
 * Messages up to this size are decoded where grpc-js receives them. Lower than the JSON bodies' megabyte: a packed
 * int64 field (a shape) decodes to one string per byte, ~0.4 µs each here, so 64 KiB cost at most ~26 ms.
 */
export const INLINE_DECODE_BYTES = 64 * 1024;

/** A ModelInferRequest's bytes that grpc-js left undecoded (a large message): the body worker decodes it. */
export class UndecodedRequest {
  constructor(readonly bytes: Buffer) {}
}

/** A ModelInferRequest's bytes that do not parse (answered with Triton's INTERNAL `Unable to parse request`). */
class UnparsableRequest extends UndecodedRequest {}

/** What the two inference RPCs receive: a decoded request, or a large one's bytes. */
export type InferMessage = WireInferRequest | UndecodedRequest;

/**
 * The service with ModelInfer's and ModelStreamInfer's large requests left undecoded (`UndecodedRequest`), and the
 * small ones that do not parse as C++ protobuf parses (`UnparsableRequest`: grpc-js would answer its own words, or
 * protobufjs read what C++ refuses, wellFormed.ts).
 * @example server.addService(deferLargeRequests(inferenceService().service), handlers)
 */
export function deferLargeRequests(service: ServiceDefinition): ServiceDefinition {
  const deferred = (name: string) => {
    const method = service[name]!;
    return {
      ...method,
      requestDeserialize: (bytes: Buffer) =>
        bytes.byteLength > INLINE_DECODE_BYTES
          ? new UndecodedRequest(bytes)
          : (parsedInferRequest(bytes) ?? new UnparsableRequest(bytes)),
    };
  };
  return { ...service, ModelInfer: deferred('ModelInfer'), ModelStreamInfer: deferred('ModelStreamInfer') };
}

/**
 * `message` as a request, with its tensors when the body worker decoded it (a decoded one's tensors are decoded
 * where it is prepared). @throws ApiError naming what is wrong with a large message.
 */
export async function decodedRequest(
  studio: Studio,
  message: InferMessage,
): Promise<{ request: WireInferRequest; inputs?: Record<string, Tensor> }> {
  if (!(message instanceof UndecodedRequest)) return { request: message };
  // 500: gRPC's INTERNAL (status.ts).
  if (message instanceof UnparsableRequest) throw new ApiError(500, 'internal', UNPARSABLE);
  const named = peekModel(message.bytes);
  // The model is looked up first (an unknown or unready one is refused before anything is decoded, once the worker
  // has seen the message parse), and its inputs go along, so Triton's checks run in the worker.
  let refusal: DecodeLimits['refusal'];
  let served: ServedModel | undefined;
  try {
    served = named && findServedModel(studio, named.name, named.version === '' ? undefined : named.version);
    if (served && !served.ready)
      throw new ApiError(503, 'unavailable', `model '${served.name}' is not ready: ${served.error ?? 'unavailable'}`);
  } catch (err) {
    const e = toApiError(err, 0);
    refusal = { status: e.status, code: e.code, message: e.message };
  }
  return studio.bodies.grpcInfer(message.bytes, {
    maxTensorElements: studio.limits.maxTensorElements,
    maxNames: studio.limits.maxGraphNodes,
    ...(refusal ? { refusal } : {}),
    ...(served && !refusal ? { model: { name: served.name, signature: served.signature } } : {}),
  });
}
