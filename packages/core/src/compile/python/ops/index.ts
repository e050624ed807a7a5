import type { OpId } from '../../../graph/types.ts';
import { emitAudioFrame } from './audio_frame.ts';
import { resolveOpValues } from './common.ts';
import type { OpPython, OpValues } from './common.ts';
import { emitCropResize } from './crop_resize.ts';
import { emitCtcDecode } from './ctc_decode.ts';
import { emitDbPostprocess } from './db_postprocess.ts';
import { emitImagePreprocess } from './image_preprocess.ts';
import { emitTopk } from './topk.ts';

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
