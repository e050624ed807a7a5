import { module, paramLines, PY_INPUT, PY_RESIZE } from './common.ts';
import type { OpPython, OpValues } from './common.ts';

const RUN = `
MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float64)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float64)


def _side(side, scale):
    cap = max(MAX_SIDE // MULTIPLE, 1) * MULTIPLE
    rounded = max(int(np.floor(side * scale / MULTIPLE + 0.5)), 1) * MULTIPLE
    return min(rounded, cap)


def run(inputs, model_dir):
    image = _input(inputs, "image_preprocess", "image", np.uint8, "UINT8", 3)
    h, w = int(image.shape[0]), int(image.shape[1])
    if h < 1 or w < 1 or image.shape[2] != 3:
        raise ValueError("image_preprocess: input 'image' must be [H,W,3] with H,W >= 1, got %s" % (list(image.shape),))
    if CHANNELS == "bgr":
        image = image[..., ::-1]
    scale = min(1.0, MAX_SIDE / max(h, w))
    out_h, out_w = _side(h, scale), _side(w, scale)
    r = _resize(image, out_h, out_w)
    if NORMALIZE == "imagenet":
        r = (r / 255 - MEAN) / STD
    elif NORMALIZE == "half":
        r = r / 127.5 - 1
    else:
        r = r / 255
    tensor = np.ascontiguousarray(r.transpose(2, 0, 1)[None]).astype(np.float32)
    shape_info = np.array([h, w, out_h / h, out_w / w], dtype=np.float32)
    return {"tensor": tensor, "shape_info": shape_info}
`;

/** numpy for `image_preprocess` (see apps/server/src/engine/ops/image_preprocess.ts). */
export function emitImagePreprocess(values: OpValues): OpPython {
  return {
    code: module('image_preprocess', paramLines('image_preprocess', values), PY_INPUT, PY_RESIZE, RUN),
    files: [],
  };
}
