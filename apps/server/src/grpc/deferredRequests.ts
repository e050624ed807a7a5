import { Metadata, type ServiceDefinition } from '@grpc/grpc-js';
import { ApiError, toApiError } from '../http/errors.ts';
import { findServedModel, type ServedModel } from '../http/servedModels.ts';
import type { Studio } from '../http/Studio.ts';
import { peekModel } from './peekModel.ts';
import { parsedInferRequest, UNPARSABLE, type DecodeLimits } from './decodeInfer.ts';
import type { RequestTensors, WireInferRequest } from './grpcTensors.ts';
import type { RepositoryMethod } from './repositoryMessages.ts';
import type { RepositoryRequest } from './repositoryRequests.ts';

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

/**
 * A message whose compressed flag is set while its call names no compression (no `grpc-encoding`, or `identity`):
 * gRPC's protocol allows the flag only with an encoding, and gRPC's own servers fail such a call with INTERNAL;
 * grpc-js passed the bytes on as they were.
 */
export class CompressedWithoutEncoding extends UndecodedRequest {}

/** What a call gets for a `CompressedWithoutEncoding` message (with status INTERNAL). */
export const COMPRESSED_WITHOUT_ENCODING =
  'Received a message with the compressed flag set but no grpc-encoding to decompress it with (none or identity)';

/**
 * Whether grpc-js handed `bytes` over as they came although their frame's compressed flag is set. grpc-js
 * reads the flag and then decompresses with the call's `grpc-encoding`, as identity when there is none, and
 * keeps neither for the handler; undecompressed, the bytes it passes are the tail of the frame it received, so
 * the 5-byte prefix (flag, big-endian length) sits just before them in the same buffer. A message it
 * decompressed is a buffer of its own, whose preceding bytes do not repeat its flag and length.
 */
function compressedWithoutEncoding(bytes: Buffer): boolean {
  if (bytes.byteOffset < 5) return false;
  const prefix = new DataView(bytes.buffer, bytes.byteOffset - 5, 5);
  return prefix.getUint8(0) === 1 && prefix.getUint32(1) === bytes.byteLength;
}

/** What the two inference RPCs receive: a decoded request, or a large one's bytes. */
export type InferMessage = WireInferRequest | UndecodedRequest;

/**
 * The service with ModelInfer's, ModelStreamInfer's and the repository load's and unload's large requests left
 * undecoded (`UndecodedRequest`), the
 * small ones that do not parse as C++ protobuf parses (`UnparsableRequest`: grpc-js would answer its own words, or
 * protobufjs read what C++ refuses, wellFormed.ts), and those flagged compressed with no encoding
 * (`CompressedWithoutEncoding`).
 * @example server.addService(deferLargeRequests(inferenceService().service), handlers)
 */
export function deferLargeRequests(service: ServiceDefinition): ServiceDefinition {
  const deferred = (name: string) => {
    const method = service[name]!;
    return {
      ...method,
      requestDeserialize: (bytes: Buffer) =>
        compressedWithoutEncoding(bytes)
          ? new CompressedWithoutEncoding(bytes)
          : bytes.byteLength > INLINE_DECODE_BYTES
            ? new UndecodedRequest(bytes)
            : (parsedInferRequest(bytes) ?? new UnparsableRequest(bytes)),
    };
  };
  // A repository message's parameters map decodes to an object per entry: a large one is read in the worker too.
  const deferredRepository = (name: RepositoryMethod) => {
    const method = service[name]!;
    return {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown =>
        bytes.byteLength > INLINE_DECODE_BYTES ? new UndecodedRequest(bytes) : method.requestDeserialize(bytes),
    };
  };
  return {
    ...service,
    ModelInfer: deferred('ModelInfer'),
    ModelStreamInfer: deferred('ModelStreamInfer'),
    RepositoryModelLoad: deferredRepository('RepositoryModelLoad'),
    RepositoryModelUnload: deferredRepository('RepositoryModelUnload'),
  };
}

/**
 * `message` as a request, with its tensors when the body worker decoded it (a decoded one's tensors are decoded
 * where it is prepared). @throws ApiError naming what is wrong with a large message.
 */
export async function decodedRequest(
  studio: Studio,
  message: InferMessage,
): Promise<{ request: WireInferRequest } & Partial<RequestTensors>> {
  if (!(message instanceof UndecodedRequest)) return { request: message };
  // 500: gRPC's INTERNAL (status.ts).
  if (message instanceof UnparsableRequest) throw new ApiError(500, 'internal', UNPARSABLE);
  if (message instanceof CompressedWithoutEncoding) throw new ApiError(500, 'internal', COMPRESSED_WITHOUT_ENCODING);
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

/**
 * A repository load's or unload's request: as grpc-js decoded it, or, for a large message, as the body worker read it
 * (its parameters already checked, `readRepositoryMessage`). @throws the gRPC refusal the checks gave.
 */
export async function repositoryRequest(
  studio: Studio,
  method: RepositoryMethod,
  message: RepositoryRequest | UndecodedRequest,
): Promise<RepositoryRequest> {
  if (!(message instanceof UndecodedRequest)) return message;
  const read = await studio.bodies.grpcRepository(method, message.bytes);
  if ('refusal' in read) throw { ...read.refusal, metadata: new Metadata() };
  return read.request;
}
