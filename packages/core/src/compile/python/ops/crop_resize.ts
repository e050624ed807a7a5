import { module, paramLines, PY_INPUT, PY_POSITIONS } from './common.ts';
import type { OpPython, OpValues } from './common.ts';

const RUN = `
def _dist(p, q):
    return float(np.sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1])))


def _quad_size(q):
    w = max(int(max(_dist(q[0], q[1]), _dist(q[3], q[2]))), 1)
    h = max(int(max(_dist(q[0], q[3]), _dist(q[1], q[2]))), 1)
    return w, h, h / w >= 1.5


def _warp(img, q, out_h, out_w):
    ih, iw = img.shape[0], img.shape[1]
    w, h, tall = _quad_size(q)
    ys = _positions(out_h, w if tall else h)[:, None]
    xs = _positions(out_w, h if tall else w)[None, :]
    s = ((w - 1 - ys) if tall else xs) / w
    t = (xs if tall else ys) / h
    x0, y0 = q[0]
    bx, by = q[1][0] - x0, q[1][1] - y0
    cx, cy = q[3][0] - x0, q[3][1] - y0
    dx, dy = x0 - q[1][0] + q[2][0] - q[3][0], y0 - q[1][1] + q[2][1] - q[3][1]
    x = np.minimum(np.maximum(x0 + s * bx + t * cx + s * t * dx, 0.0), float(iw - 1))
    y = np.minimum(np.maximum(y0 + s * by + t * cy + s * t * dy, 0.0), float(ih - 1))
    xi, yi = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    fx, fy = (x - xi)[:, :, None], (y - yi)[:, :, None]
    xj, yj = np.minimum(xi + 1, iw - 1), np.minimum(yi + 1, ih - 1)
    a = img.astype(np.float64)
    top = a[yi, xi] * (1 - fx) + a[yi, xj] * fx
    bottom = a[yj, xi] * (1 - fx) + a[yj, xj] * fx
    return top * (1 - fy) + bottom * fy


def run(inputs, model_dir):
    image = _input(inputs, "crop_resize", "image", np.uint8, "UINT8", 3)
    boxes = _input(inputs, "crop_resize", "boxes", np.float32, "FP32", 3)
    ih, iw = int(image.shape[0]), int(image.shape[1])
    if ih < 1 or iw < 1 or image.shape[2] != 3:
        raise ValueError("crop_resize: input 'image' must be [H,W,3] with H,W >= 1, got %s" % (list(image.shape),))
    if boxes.shape[1] != 4 or boxes.shape[2] != 2:
        raise ValueError("crop_resize: input 'boxes' must be [N,4,2] (four corners x, y), got %s" % (list(boxes.shape),))
    if not np.all(np.isfinite(boxes)):
        raise ValueError("crop_resize: input 'boxes' holds a non-finite coordinate")
    if CHANNELS == "bgr":
        image = image[..., ::-1]
    quads = [[(float(p[0]), float(p[1])) for p in b] for b in boxes]
    sizes = [_quad_size(q) for q in quads]
    ratios = [(h / w) if tall else (w / h) for w, h, tall in sizes]
    pad = min(max(MIN_WIDTH, int(np.floor(HEIGHT * max([0.0] + ratios)))), MAX_WIDTH)
    widths = [min(max(int(np.ceil(HEIGHT * q)), 1), pad) for q in ratios]
    out = np.zeros((len(quads), 3, HEIGHT, pad), dtype=np.float32)
    for i, q in enumerate(quads):
        r = _warp(image, q, HEIGHT, widths[i]) / 127.5 - 1
        out[i, :, :, :widths[i]] = r.transpose(2, 0, 1)
    return {"crops": out}
`;

/** numpy for `crop_resize` (see apps/server/src/engine/ops/crop_resize.ts). */
export function emitCropResize(values: OpValues): OpPython {
  return { code: module('crop_resize', paramLines('crop_resize', values), PY_INPUT, PY_POSITIONS, RUN), files: [] };
}
