import type { OpPython } from './index.ts';
import { module, paramLines, PY_INPUT } from './common.ts';
import type { OpValues } from './common.ts';

/** Run-based 4-connected labelling, identical in order and sums to engine/ops/components.ts. */
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
                if x0[a] <= x1[b] and x0[b] <= x1[a]:
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
            c = comps[root] = {"min_x": x0[i], "max_x": x1[i], "min_y": ys[i], "max_y": ys[i], "runs": [], "first": root}
        c["min_x"] = min(c["min_x"], x0[i])
        c["max_x"] = max(c["max_x"], x1[i])
        c["max_y"] = ys[i]
        c["runs"].append(m[ys[i], x0[i]:x1[i] + 1])
    for c in comps.values():
        values = np.concatenate(c["runs"])
        c["count"] = int(values.size)
        c["sum"] = float(np.cumsum(values)[-1])
    return sorted(comps.values(), key=lambda c: (c["min_y"], c["min_x"], c["first"]))
`;

const RUN = `
def _reading_order(boxes):
    order = sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0]))
    for i in range(len(order) - 1):
        for j in range(i, -1, -1):
            p, q = order[j], order[j + 1]
            if not (abs(boxes[q][1] - boxes[p][1]) < 10 and boxes[q][0] < boxes[p][0]):
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
    boxes, scores = [], []
    for c in _components(prob[0, 0].astype(np.float64), THRESH)[:MAX_CANDIDATES]:
        score = c["sum"] / c["count"]
        bw = c["max_x"] - c["min_x"] + 1
        bh = c["max_y"] - c["min_y"] + 1
        if score < BOX_THRESH or min(bw, bh) < MIN_SIZE:
            continue
        d = (bw * bh * UNCLIP_RATIO) / (2 * (bw + bh))
        boxes.append([
            min(max((c["min_x"] - d) / ratio_w, 0.0), src_w),
            min(max((c["min_y"] - d) / ratio_h, 0.0), src_h),
            min(max((c["max_x"] + 1 + d) / ratio_w, 0.0), src_w),
            min(max((c["max_y"] + 1 + d) / ratio_h, 0.0), src_h),
        ])
        scores.append(score)
    order = _reading_order(boxes)
    return {
        "boxes": np.array([boxes[i] for i in order], dtype=np.float64).reshape(-1, 4).astype(np.float32),
        "scores": np.array([scores[i] for i in order], dtype=np.float64).astype(np.float32),
    }
`;

/** numpy for `db_postprocess` (see apps/server/src/engine/ops/db_postprocess.ts). */
export function emitDbPostprocess(values: OpValues): OpPython {
  return { code: module('db_postprocess', paramLines('db_postprocess', values), PY_INPUT, COMPONENTS, RUN), files: [] };
}
