import type { OpId } from '@ensemble-studio/core';
import { audioFrame } from './audio_frame.ts';
import { cropResize } from './crop_resize.ts';
import { ctcDecode } from './ctc_decode.ts';
import { dbPostprocess } from './db_postprocess.ts';
import { imagePreprocess } from './image_preprocess.ts';
import { topk } from './topk.ts';
import type { OpImpl } from './opTypes.ts';

export type { OpContext } from './opTypes.ts';

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
