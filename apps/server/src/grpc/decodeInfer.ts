import { ApiError } from '../http/errors.ts';
import { checkInputs, checkNameCounts, withShared, type CheckedModel } from '../http/kserveChecks.ts';
import { requestInputs, type RequestTensors, type WireInferRequest } from './grpcTensors.ts';
import { inferNames } from './inferNames.ts';
import { inferenceService } from './loadService.ts';
import { wellFormedInferRequest } from './wellFormed.ts';

/** What the body worker checks a large ModelInferRequest against before anything goes back to the main thread. */
export interface DecodeLimits {
  maxTensorElements: number;
  /** The model the request names (read from its first bytes: peekModel.ts): checked as Triton checks, here. */
  model?: CheckedModel;
  /** More inputs or outputs than this (the most a graph can have nodes) are refused before any tensor is decoded. */
  maxNames: number;
  /** The answer already known from the first bytes (an unknown or unready model), given once the message parses. */
  refusal?: { status: number; code: string; message: string };
}

/** What Triton's gRPC server (C++) answers a request that does not parse, with gRPC's INTERNAL. */
export const UNPARSABLE = 'Unable to parse request';

/** A decoded ModelInferRequest: its tensors apart (those in shared memory as their windows), and the request without their contents. */
export interface DecodedInfer extends RequestTensors {
  request: WireInferRequest;
}

/**
 * `bytes` decoded as a ModelInferRequest, or undefined when C++ protobuf would not parse them (wellFormed.ts) or
 * protobufjs cannot.
 * @example parsedInferRequest(Buffer.from([0x0a, 0x01, 0x6d]))?.model_name // 'm'
 */
export function parsedInferRequest(bytes: Buffer): WireInferRequest | undefined {
  return wellFormedInferRequest(bytes) ? decoded(bytes) : undefined;
}

/** protobufjs's decoding of bytes `wellFormedInferRequest` accepted; undefined if it fails all the same. */
function decoded(bytes: Buffer): WireInferRequest | undefined {
  try {
    return inferenceService().service.ModelInfer!.requestDeserialize(bytes) as WireInferRequest;
  } catch {
    return undefined;
  }
}

/**
 * Decodes a ModelInferRequest's bytes (the body worker does this for large ones) and its tensors, as grpc-js and
 * `requestInputs` would on the main thread, with the same 400s; a request naming more inputs or outputs than any
 * model can have is refused first, so a million one-element inputs cost one error instead of a million tensors.
 * With `limits.model` (the model it names), Triton's checks against that model run here too, so a refused
 * request's tensors never cross to the main thread.
 * @example decodeInferRequest(bytes, { maxTensorElements: 1 << 24, maxNames: 1024 }).inputs.x.shape
 */
export function decodeInferRequest(bytes: Uint8Array, limits: DecodeLimits): DecodedInfer {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!wellFormedInferRequest(buffer)) throw new ApiError(500, 'internal', UNPARSABLE);
  if (limits.refusal) throw new ApiError(limits.refusal.status, limits.refusal.code, limits.refusal.message);
  // The counts from the names alone, before protobufjs decodes the whole message.
  const names = inferNames(buffer);
  const checked = limits.model?.name === names.model ? limits.model : undefined;
  if (checked) checkNameCounts(checked, names.inputs, names.outputs, names.id);
  for (const [what, n] of [
    ['inputs', names.inputs.length],
    ['outputs', names.outputs.length],
  ] as const) {
    if (n > limits.maxNames)
      throw new ApiError(
        400,
        'bad-request',
        `model '${names.model.slice(0, 128)}': the request names ${n} ${what}, more than a model can have here (maxGraphNodes=${limits.maxNames})`,
      );
  }
  const req = decoded(buffer);
  if (!req) throw new ApiError(500, 'internal', UNPARSABLE);
  const { inputs, shared, outputWindows } = requestInputs(req, limits.maxTensorElements);
  if (checked) checkInputs(checked, withShared(inputs, shared), req.id);
  const request: WireInferRequest = {
    ...req,
    inputs: req.inputs.map((i) => ({ ...i, contents: null })),
    raw_input_contents: [],
  };
  return { request, inputs, shared, outputWindows };
}
