import type { OpId, Tensor } from '@ensemble-studio/core';
import { audioFrame } from './audio_frame.ts';
import { cropResize } from './crop_resize.ts';
import { ctcDecode } from './ctc_decode.ts';
import { dbPostprocess } from './db_postprocess.ts';
import { imagePreprocess } from './image_preprocess.ts';
import { topk } from './topk.ts';

/** What an op may ask of the engine while it runs. */
export interface OpContext {
  /** Reads a repository-relative text file (e.g. the CTC dictionary); the engine caches it. */
  readText(path: string): string;
}

/**
 * A built-in op in TypeScript: a synchronous, pure function of its inputs (never
 * mutates them). Values missing from `values` take the op's defaults; bad inputs or params throw
 * an Error naming the op and the port or param.
 */
export interface OpImpl {
  id: OpId;
  run(
    inputs: Record<string, Tensor>,
    values: Record<string, number | string | boolean>,
    ctx: OpContext,
  ): Record<string, Tensor>;
}

/**
 * Every built-in op by id.
 * @example OPS.topk.run({ scores }, { k: 2 }, ctx).indices
 */
export const OPS: Record<OpId, OpImpl> = {
  image_preprocess: imagePreprocess,
  db_postprocess: dbPostprocess,
  crop_resize: cropResize,
  ctc_decode: ctcDecode,
  topk,
  audio_frame: audioFrame,
};

/** The op named `op`, or undefined for an unknown name (never an inherited property such as `constructor`). */
export function opImpl(op: string): OpImpl | undefined {
  return Object.hasOwn(OPS, op) ? OPS[op as OpId] : undefined;
}
