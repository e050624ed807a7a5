import type { Tensor } from '@ensemble-studio/core';
import { ApiError } from '../http/errors.ts';
import { checkInputs, checkNameCounts, type CheckedModel } from '../http/kserveChecks.ts';
import { requestInputs, type WireInferRequest } from './grpcTensors.ts';
import { inferenceService } from './loadService.ts';

/** What the body worker checks a large ModelInferRequest against before anything goes back to the main thread. */
export interface DecodeLimits {
  maxTensorElements: number;
  /** The model the request names (read from its first bytes: peekModel.ts): checked as Triton checks, here. */
  model?: CheckedModel;
  /** More inputs or outputs than this (the most a graph can have nodes) are refused before any tensor is decoded. */
  maxNames: number;
}

/** A decoded ModelInferRequest: its tensors apart, and the request without their contents. */
export interface DecodedInfer {
  request: WireInferRequest;
  inputs: Record<string, Tensor>;
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
  const req = inferenceService().service.ModelInfer!.requestDeserialize(buffer) as WireInferRequest;
  const model = req.model_name;
  const checked = limits.model?.name === model ? limits.model : undefined;
  if (checked)
    checkNameCounts(
      checked,
      req.inputs.map((i) => i.name),
      req.outputs?.map((o) => o.name),
    );
  for (const [what, n] of [
    ['inputs', req.inputs.length],
    ['outputs', req.outputs?.length ?? 0],
  ] as const) {
    if (n > limits.maxNames)
      throw new ApiError(
        400,
        'bad-request',
        `model '${model.slice(0, 128)}': the request names ${n} ${what}, more than a model can have here (maxGraphNodes=${limits.maxNames})`,
      );
  }
  const inputs = requestInputs(req, limits.maxTensorElements);
  if (checked) checkInputs(checked, inputs);
  const request: WireInferRequest = {
    ...req,
    inputs: req.inputs.map((i) => ({ ...i, contents: null })),
    raw_input_contents: [],
  };
  return { request, inputs };
}
