import { module, paramLines, PY_INPUT } from './common.ts';
import type { OpPython, OpValues } from './common.ts';

/** Run-based 8-connected labelling (as OpenCV's contours), identical in order and run ends to engine/ops/components.ts. */
const COMPONENTS = `
def _runs(binary):
    h, w = binary.shape
    pad = np.zeros((h, w + 2), dtype=np.int8)
    pad[:, 1:-1] = binary
    d = np.diff(pad, axis=1)
    ys, xs = np.nonzero(d == 1)
    _, xe = np.nonzero(d == -1)
    return ys.tolist(), xs.tolist(), (xe - 1).tolist()


def _find(parent, i):
    r = i
    while parent[r] != r:
        r = parent[r]
    while parent[i] != r:
        parent[i], i = r, parent[i]
    return r


def _link(ys, x0, x1, parent):
    n = len(ys)
    prev, cur = 0, 0
    while cur < n:
        y = ys[cur]
        end = cur
        while end < n and ys[end] == y:
            end += 1
        if prev < cur and ys[prev] == y - 1:
            a, b = prev, cur
            while a < cur and b < end:
                if x0[a] <= x1[b] + 1 and x0[b] <= x1[a] + 1:
                    ra, rb = _find(parent, a), _find(parent, b)
                    if ra != rb:
                        parent[max(ra, rb)] = min(ra, rb)
                if x1[a] < x1[b]:
                    a += 1
                else:
                    b += 1
        prev, cur = cur, end


def _components(m, thresh):
    ys, x0, x1 = _runs(m > thresh)
    parent = list(range(len(ys)))
    _link(ys, x0, x1, parent)
    comps = {}
    for i in range(len(ys)):
        root = _find(parent, i)
        c = comps.get(root)
        if c is None:
            c = comps[root] = {"min_x": x0[i], "max_x": x1[i], "min_y": ys[i], "max_y": ys[i], "ends": [], "first": root}
        c["min_x"] = min(c["min_x"], x0[i])
        c["max_x"] = max(c["max_x"], x1[i])
        c["max_y"] = ys[i]
        c["ends"] += [(x0[i], ys[i]), (x1[i], ys[i])]
    return sorted(comps.values(), key=lambda c: (c["min_y"], c["min_x"], c["first"]))
`;

/** Rotated rectangles, the same doubles as engine/ops/rect.ts (only +, -, *, / and sqrt, in its order). */
const RECT = `
def _hull(points):
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    def half(seq):
        h = []
        for p in seq:
            while len(h) >= 2 and cross(h[-2], h[-1], p) <= 0:
                h.pop()
            h.append(p)
        h.pop()
        return h

    return half(pts) + half(pts[::-1])


def _min_area_rect(hull):
    n = len(hull)
    if n < 3:
        return None
    best, best_area = None, float("inf")
    for i in range(n):
        ox, oy = hull[i]
        qx, qy = hull[(i + 1) % n]
        dx, dy = qx - ox, qy - oy
        ln = float(np.sqrt(dx * dx + dy * dy))
        ux, uy = dx / ln, dy / ln
        a0, a1, b0, b1 = float("inf"), float("-inf"), float("inf"), float("-inf")
        for px, py in hull:
            rx, ry = px - ox, py - oy
            a = rx * ux + ry * uy
            b = ry * ux - rx * uy
            a0, a1, b0, b1 = min(a0, a), max(a1, a), min(b0, b), max(b1, b)
        area = (a1 - a0) * (b1 - b0)
        if area < best_area:
            best_area, best = area, [float(ox), float(oy), ux, uy, a0, a1, b0, b1]
    return best


def _dist(p, q):
    return float(np.sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1])))


def _corner(r, a, b):
    return (r[0] + a * r[2] - b * r[3], r[1] + a * r[3] + b * r[2])


def _ordered_corners(r):
    ox, oy, ux, uy, a0, a1, b0, b1 = r
    p = sorted([_corner(r, a0, b0), _corner(r, a1, b0), _corner(r, a1, b1), _corner(r, a0, b1)], key=lambda q: q[0])
    i1, i4 = (0, 1) if p[1][1] > p[0][1] else (1, 0)
    i2, i3 = (2, 3) if p[3][1] > p[2][1] else (3, 2)
    return [p[i1], p[i2], p[i3], p[i4]]


def _mean_in_rect(m, r):
    h, w = m.shape
    ox, oy, ux, uy, a0, a1, b0, b1 = r
    cs = [_corner(r, a0, b0), _corner(r, a1, b0), _corner(r, a1, b1), _corner(r, a0, b1)]
    x0 = min(max(int(np.floor(min(c[0] for c in cs))), 0), w - 1)
    x1 = min(max(int(np.ceil(max(c[0] for c in cs))), 0), w - 1)
    y0 = min(max(int(np.floor(min(c[1] for c in cs))), 0), h - 1)
    y1 = min(max(int(np.ceil(max(c[1] for c in cs))), 0), h - 1)
    ry = (np.arange(y0, y1 + 1, dtype=np.float64) - oy)[:, None]
    rx = (np.arange(x0, x1 + 1, dtype=np.float64) - ox)[None, :]
    a = rx * ux + ry * uy
    b = ry * ux - rx * uy
    edge = 1e-6
    inside = (a >= a0 - edge) & (a <= a1 + edge) & (b >= b0 - edge) & (b <= b1 + edge)
    values = m[y0:y1 + 1, x0:x1 + 1][inside]
    return float(np.cumsum(values)[-1]) / values.size if values.size else 0.0
`;

const RUN = `
def _reading_order(boxes):
    order = sorted(range(len(boxes)), key=lambda i: (boxes[i][0][1], boxes[i][0][0]))
    for i in range(len(order) - 1):
        for j in range(i, -1, -1):
            p, q = order[j], order[j + 1]
            if not (abs(boxes[q][0][1] - boxes[p][0][1]) < 10 and boxes[q][0][0] < boxes[p][0][0]):
                break
            order[j], order[j + 1] = q, p
    return order


def run(inputs, model_dir):
    prob = _input(inputs, "db_postprocess", "prob", np.float32, "FP32", 4)
    info = _input(inputs, "db_postprocess", "shape_info", np.float32, "FP32", 1)
    if prob.shape[0] != 1 or prob.shape[1] != 1:
        raise ValueError("db_postprocess: input 'prob' must be [1,1,H,W], got %s" % (list(prob.shape),))
    if info.shape[0] != 4:
        raise ValueError("db_postprocess: input 'shape_info' must have 4 values, got %d" % info.shape[0])
    src_h, src_w, ratio_h, ratio_w = [float(x) for x in info]
    if not all(np.isfinite(x) and x > 0 for x in (src_h, src_w, ratio_h, ratio_w)):
        raise ValueError("db_postprocess: input 'shape_info' must hold positive [src_h, src_w, ratio_h, ratio_w]")
    m = prob[0, 0].astype(np.float64)
    boxes, scores = [], []
    for c in _components(m, THRESH)[:MAX_CANDIDATES]:
        rect = _min_area_rect(_hull(c["ends"]))
        if rect is None:
            continue
        rw0, rh0 = rect[5] - rect[4], rect[7] - rect[6]
        if min(rw0, rh0) < MIN_SIZE:
            continue
        score = _mean_in_rect(m, rect)
        if score < BOX_THRESH:
            continue
        d = (rw0 * rh0 * UNCLIP_RATIO) / (2 * (rw0 + rh0))
        if min(rw0, rh0) + 2 * d < MIN_SIZE + 2:
            continue
        grown = rect[:4] + [rect[4] - d, rect[5] + d, rect[6] - d, rect[7] + d]
        box = [(min(max(x / ratio_w, 0.0), src_w), min(max(y / ratio_h, 0.0), src_h)) for x, y in _ordered_corners(grown)]
        if int(_dist(box[0], box[1])) <= 3 or int(_dist(box[0], box[3])) <= 3:
            continue
        boxes.append(box)
        scores.append(score)
    order = _reading_order(boxes)
    return {
        "boxes": np.array([boxes[i] for i in order], dtype=np.float64).reshape(-1, 4, 2).astype(np.float32),
        "scores": np.array([scores[i] for i in order], dtype=np.float64).astype(np.float32),
    }
`;

/** numpy for `db_postprocess` (see apps/server/src/engine/ops/db_postprocess.ts). */
export function emitDbPostprocess(values: OpValues): OpPython {
  return {
    code: module('db_postprocess', paramLines('db_postprocess', values), PY_INPUT, COMPONENTS, RECT, RUN),
    files: [],
  };
}
