import type { OpId } from '../graph/types.ts';
import type { ParamSpec, PortSpec } from '../kinds/params.ts';

/**
 * Built-in pre/post-processing ops as data. The engine runs each in TypeScript
 * (apps/server/src/engine/ops/<id>.ts); the compiler emits the same computation as numpy in a
 * generated Python model (compile/python/ops/<id>.ts). Shapes are full shapes (no implied batch:
 * generated op models have max_batch_size 0).
 */
export interface OpDef {
  id: OpId;
  title: string;
  description: string;
  inputs: PortSpec[];
  outputs: PortSpec[];
  params: ParamSpec[];
}

/**
 * The channel order the model reads: PaddleOCR's models were trained on OpenCV's BGR images (and
 * PaddleOCR normalises channel 0, blue, with ImageNet's first mean), while images arrive as RGB.
 */
const CHANNELS: ParamSpec = {
  name: 'channels',
  label: 'Channel order',
  type: 'enum',
  default: 'bgr',
  options: ['bgr', 'rgb'],
  help: 'The order the model was trained on: bgr for PaddleOCR (OpenCV), rgb for most others.',
};

export const OP_DEFS: Record<OpId, OpDef> = {
  image_preprocess: {
    id: 'image_preprocess',
    title: 'Image preprocess',
    description:
      'UINT8 HWC image (RGB) → normalised FP32 NCHW in the model’s channel order, resized so each side is a multiple of 32 and the longer side ≤ max_side.',
    inputs: [{ name: 'image', datatype: 'UINT8', shape: [-1, -1, 3] }],
    outputs: [
      { name: 'tensor', datatype: 'FP32', shape: [1, 3, -1, -1] },
      // [src_h, src_w, ratio_h, ratio_w]: maps tensor coordinates back to the image.
      { name: 'shape_info', datatype: 'FP32', shape: [4] },
    ],
    params: [
      { name: 'max_side', label: 'Max side', type: 'integer', default: 960, min: 32, max: 4096 },
      { name: 'multiple', label: 'Multiple of', type: 'integer', default: 32, min: 1, max: 256 },
      {
        name: 'normalize',
        label: 'Normalisation',
        type: 'enum',
        default: 'imagenet',
        options: ['imagenet', 'half', 'unit'],
      },
      CHANNELS,
    ],
  },
  db_postprocess: {
    id: 'db_postprocess',
    title: 'DB post-process',
    description:
      'Probability map → rotated text boxes [N,4,2] (corners top-left, top-right, bottom-right, bottom-left as x,y in image pixels) and scores, with unclip, as PaddleOCR’s DB post-process.',
    inputs: [
      { name: 'prob', datatype: 'FP32', shape: [1, 1, -1, -1] },
      { name: 'shape_info', datatype: 'FP32', shape: [4] },
    ],
    outputs: [
      { name: 'boxes', datatype: 'FP32', shape: [-1, 4, 2] },
      { name: 'scores', datatype: 'FP32', shape: [-1] },
    ],
    params: [
      { name: 'thresh', label: 'Pixel threshold', type: 'number', default: 0.3, min: 0, max: 1 },
      { name: 'box_thresh', label: 'Box threshold', type: 'number', default: 0.6, min: 0, max: 1 },
      { name: 'unclip_ratio', label: 'Unclip ratio', type: 'number', default: 1.5, min: 0, max: 10 },
      { name: 'min_size', label: 'Min box side', type: 'integer', default: 3, min: 1, max: 1000 },
      { name: 'max_candidates', label: 'Max boxes', type: 'integer', default: 1000, min: 1, max: 100000 },
    ],
  },
  crop_resize: {
    id: 'crop_resize',
    title: 'Crop & resize',
    description:
      'Warps each box (four corners, as db_postprocess gives them) straight out of the image (a crop 1.5× taller than wide is turned 90° counter-clockwise, as PaddleOCR reads vertical text) and resizes it to height × W, aspect kept, normalised to [-1, 1] in the model’s channel order, right-padded to the widest crop (as PaddleOCR sizes a recognition batch: at least min_width, at most max_width).',
    inputs: [
      { name: 'image', datatype: 'UINT8', shape: [-1, -1, 3] },
      { name: 'boxes', datatype: 'FP32', shape: [-1, 4, 2] },
    ],
    outputs: [{ name: 'crops', datatype: 'FP32', shape: [-1, 3, 48, -1] }],
    params: [
      { name: 'height', label: 'Height', type: 'integer', default: 48, min: 8, max: 512 },
      { name: 'min_width', label: 'Min width', type: 'integer', default: 320, min: 1, max: 8192 },
      { name: 'max_width', label: 'Max width', type: 'integer', default: 3200, min: 8, max: 8192 },
      CHANNELS,
    ],
  },
  ctc_decode: {
    id: 'ctc_decode',
    title: 'CTC decode',
    description:
      'Greedy CTC decode of [N,T,C] class probabilities with a character dictionary (index 0 = blank) → texts and mean confidences.',
    inputs: [{ name: 'probs', datatype: 'FP32', shape: [-1, -1, -1] }],
    outputs: [
      { name: 'texts', datatype: 'BYTES', shape: [-1] },
      { name: 'scores', datatype: 'FP32', shape: [-1] },
    ],
    params: [
      {
        name: 'dictionary',
        label: 'Dictionary file',
        type: 'string',
        default: 'rec/ppocr_keys_v1.txt',
        help: 'A repository-relative file, one character a line (PP-OCR format).',
      },
      { name: 'space_char', label: 'Append space', type: 'boolean', default: true },
    ],
  },
  topk: {
    id: 'topk',
    title: 'Top-k',
    description: 'The k largest values of each row of [N,C] and their indices.',
    inputs: [{ name: 'scores', datatype: 'FP32', shape: [-1, -1] }],
    outputs: [
      { name: 'values', datatype: 'FP32', shape: [-1, -1] },
      { name: 'indices', datatype: 'INT64', shape: [-1, -1] },
    ],
    params: [{ name: 'k', label: 'k', type: 'integer', default: 1, min: 1, max: 1000 }],
  },
  audio_frame: {
    id: 'audio_frame',
    title: 'Audio framing',
    description:
      'A chunk of mono samples whose first `context` samples repeat the end of the previous chunk → [N, context+window] frames, plus the sample rate.',
    inputs: [{ name: 'audio', datatype: 'FP32', shape: [-1] }],
    outputs: [
      { name: 'frames', datatype: 'FP32', shape: [-1, -1] },
      { name: 'sr', datatype: 'INT64', shape: [1] },
    ],
    params: [
      { name: 'window', label: 'Window', type: 'integer', default: 512, min: 1, max: 65536 },
      { name: 'context', label: 'Context', type: 'integer', default: 64, min: 0, max: 65536 },
      { name: 'sample_rate', label: 'Sample rate', type: 'integer', default: 16000, min: 1000, max: 192000 },
    ],
  },
};

/**
 * The definition of an op by name, or undefined for an unknown name (own properties only, so a
 * document naming `__proto__` or `toString` as its op is simply unknown).
 * @example opDef('topk')?.params
 */
export function opDef(id: string): OpDef | undefined {
  return Object.hasOwn(OP_DEFS, id) ? OP_DEFS[id as OpId] : undefined;
}

/** Default param values of an op. */
export function opDefaults(id: OpId): Record<string, number | string | boolean> {
  return Object.fromEntries(OP_DEFS[id].params.map((p) => [p.name, p.default]));
}
