import type { OpId } from '../../../graph/types.ts';
import { emitAudioFrame } from './audio_frame.ts';
import { resolveOpValues } from './common.ts';
import type { OpValues } from './common.ts';
import { emitCropResize } from './crop_resize.ts';
import { emitCtcDecode } from './ctc_decode.ts';
import { emitDbPostprocess } from './db_postprocess.ts';
import { emitImagePreprocess } from './image_preprocess.ts';
import { emitTopk } from './topk.ts';

/** The numpy side of one built-in op, for a generated Triton Python model. */
export interface OpPython {
  /**
   * Python source defining `def run(inputs, model_dir)`: `inputs` maps port names to
   * `np.ndarray`s and the result maps output port names to arrays (BYTES as `np.object_` arrays
   * of `bytes`). Params are baked in as escaped literals; needs only `import numpy as np` and
   * `import os` at module top. Bad inputs raise `ValueError` naming the op and port.
   */
  code: string;
  /** Repository-relative files (`from`) to copy into the model directory (`to`, relative to `model_dir`). */
  files: { from: string; to: string }[];
}

const EMITTERS: Record<OpId, (values: OpValues) => OpPython> = {
  image_preprocess: emitImagePreprocess,
  db_postprocess: emitDbPostprocess,
  crop_resize: emitCropResize,
  ctc_decode: emitCtcDecode,
  topk: emitTopk,
  audio_frame: emitAudioFrame,
};

/**
 * Python (numpy) source doing what the engine's TypeScript op does. Missing values take the op's
 * defaults; a bad value throws `<op>: param …`.
 * @example emitOpPython('topk', { k: 5 }).code // contains 'K = 5' and 'def run(inputs, model_dir):'
 */
export function emitOpPython(op: OpId, values: Record<string, number | string | boolean>): OpPython {
  return EMITTERS[op](resolveOpValues(op, values));
}
