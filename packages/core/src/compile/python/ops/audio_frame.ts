import { module, paramLines, PY_INPUT } from './common.ts';
import type { OpPython, OpValues } from './common.ts';

const RUN = `
def run(inputs, model_dir):
    audio = _input(inputs, "audio_frame", "audio", np.float32, "FP32", 1)
    s = int(audio.shape[0])
    if s < CONTEXT + WINDOW:
        raise ValueError("audio_frame: input 'audio' has %d samples, fewer than context + window = %d + %d" % (s, CONTEXT, WINDOW))
    f = (s - CONTEXT) // WINDOW
    idx = np.arange(f)[:, None] * WINDOW + np.arange(CONTEXT + WINDOW)[None, :]
    return {"frames": audio[idx].astype(np.float32), "sr": np.array([SAMPLE_RATE], dtype=np.int64)}
`;

/** numpy for `audio_frame` (see apps/server/src/engine/ops/audio_frame.ts). */
export function emitAudioFrame(values: OpValues): OpPython {
  return { code: module('audio_frame', paramLines('audio_frame', values), PY_INPUT, RUN), files: [] };
}
