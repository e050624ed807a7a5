import { module, paramLines, PY_INPUT } from './common.ts';
import type { OpPython, OpValues } from './common.ts';
import { pyStr } from '../../pyStr.ts';

/**
 * Where a dictionary is copied, relative to the generated model's directory: its repository path
 * with every character outside `[A-Za-z0-9_.-]` replaced by `_`, so two dictionaries never collide.
 * @example dictionaryTarget('rec/ppocr_keys_v1.txt') === 'dict_rec_ppocr_keys_v1.txt'
 */
export function dictionaryTarget(path: string): string {
  return `dict_${path.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
}

const RUN = (file: string) => `
_CHARS = None


def _chars(model_dir):
    global _CHARS
    if _CHARS is None:
        with open(os.path.join(model_dir, ${pyStr(file)}), encoding="utf-8", newline="") as f:
            lines = f.read().split("\\n")
        lines = [l[:-1] if l.endswith("\\r") else l for l in lines]
        if lines and lines[-1] == "":
            lines.pop()
        if SPACE_CHAR:
            lines.append(" ")
        _CHARS = lines
    return _CHARS


def run(inputs, model_dir):
    probs = _input(inputs, "ctc_decode", "probs", np.float32, "FP32", 3)
    chars = _chars(model_dir)
    n, c = probs.shape[0], probs.shape[2]
    if c != len(chars) + 1:
        raise ValueError("ctc_decode: input 'probs' has %d classes but dictionary %s gives %d" % (c, DICTIONARY, len(chars) + 1))
    idx = probs.argmax(axis=2)
    best = np.take_along_axis(probs, idx[:, :, None], axis=2)[:, :, 0].astype(np.float64)
    texts = []
    scores = np.zeros(n, dtype=np.float32)
    for i in range(n):
        row = idx[i]
        keep = row != 0
        keep[1:] &= row[1:] != row[:-1]
        kept = row[keep].tolist()
        texts.append("".join(chars[k - 1] for k in kept).encode("utf-8"))
        if kept:
            scores[i] = np.cumsum(best[i][keep])[-1] / len(kept)
    return {"texts": np.array(texts, dtype=np.object_).reshape(n), "scores": scores}
`;

/**
 * numpy for `ctc_decode` (see apps/server/src/engine/ops/ctc_decode.ts). The dictionary file
 * (`values.dictionary`, repository-relative) is copied into the model directory as
 * `dictionaryTarget(values.dictionary)`.
 */
export function emitCtcDecode(values: OpValues): OpPython {
  const to = dictionaryTarget(String(values.dictionary));
  return {
    code: module('ctc_decode', paramLines('ctc_decode', values), PY_INPUT, RUN(to)),
    files: [{ from: String(values.dictionary), to }],
  };
}
