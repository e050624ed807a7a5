import { module, paramLines, PY_INPUT } from './common.ts';
import type { OpPython, OpValues } from './common.ts';

const RUN = `
def run(inputs, model_dir):
    scores = _input(inputs, "topk", "scores", np.float32, "FP32", 2)
    if K > scores.shape[1]:
        raise ValueError("topk: k = %d exceeds the %d columns of input 'scores'" % (K, scores.shape[1]))
    key = np.where(np.isnan(scores), -np.inf, scores.astype(np.float64))
    order = np.argsort(-key, axis=1, kind="stable")[:, :K]
    return {
        "values": np.take_along_axis(scores, order, axis=1).astype(np.float32),
        "indices": order.astype(np.int64),
    }
`;

/** numpy for `topk` (see apps/server/src/engine/ops/topk.ts): ties → lower index, NaN lowest. */
export function emitTopk(values: OpValues): OpPython {
  return { code: module('topk', paramLines('topk', values), PY_INPUT, RUN), files: [] };
}
