import type { OpPython } from './index.ts';
import { module, paramLines, PY_INPUT, PY_RESIZE } from './common.ts';
import type { OpValues } from './common.ts';

const RUN = `
def _region(x1, y1, x2, y2, w, h):
    x = min(max(int(np.floor(x1)), 0), w - 1)
    y = min(max(int(np.floor(y1)), 0), h - 1)
    xe = min(max(int(np.ceil(x2)), x + 1), w)
    ye = min(max(int(np.ceil(y2)), y + 1), h)
    return x, y, xe - x, ye - y


def run(inputs, model_dir):
    image = _input(inputs, "crop_resize", "image", np.uint8, "UINT8", 3)
    boxes = _input(inputs, "crop_resize", "boxes", np.float32, "FP32", 2)
    ih, iw = int(image.shape[0]), int(image.shape[1])
    if ih < 1 or iw < 1 or image.shape[2] != 3:
        raise ValueError("crop_resize: input 'image' must be [H,W,3] with H,W >= 1, got %s" % (list(image.shape),))
    if boxes.shape[1] != 4:
        raise ValueError("crop_resize: input 'boxes' must be [N,4], got %s" % (list(boxes.shape),))
    if not np.all(np.isfinite(boxes)):
        raise ValueError("crop_resize: input 'boxes' holds a non-finite coordinate")
    crops = []
    for b in boxes:
        x, y, rw, rh = _region(*[float(v) for v in b], iw, ih)
        crop = image[y:y + rh, x:x + rw]
        crops.append(np.rot90(crop) if rh / rw >= 1.5 else crop)
    ratios = [c.shape[1] / c.shape[0] for c in crops]
    pad = min(max(MIN_WIDTH, int(np.floor(HEIGHT * max([0.0] + ratios)))), MAX_WIDTH)
    widths = [min(max(int(np.ceil(HEIGHT * q)), 1), pad) for q in ratios]
    out = np.zeros((len(crops), 3, HEIGHT, pad), dtype=np.float32)
    for i, crop in enumerate(crops):
        r = _resize(crop, HEIGHT, widths[i]) / 127.5 - 1
        out[i, :, :, :widths[i]] = r.transpose(2, 0, 1)
    return {"crops": out}
`;

/** numpy for `crop_resize` (see apps/server/src/engine/ops/crop_resize.ts). */
export function emitCropResize(values: OpValues): OpPython {
  return { code: module('crop_resize', paramLines('crop_resize', values), PY_INPUT, PY_RESIZE, RUN), files: [] };
}
