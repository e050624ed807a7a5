import { describe, expect, it } from 'vitest';
import { emitOpPython } from './index.ts';
import { dictionaryTarget } from './ctc_decode.ts';

describe('emitOpPython', () => {
  it('bakes params in as Python literals, defaults filled in', () => {
    const { code, files } = emitOpPython('topk', { k: 5 });
    expect(code).toContain('\nK = 5\n');
    expect(code).toContain('def run(inputs, model_dir):');
    expect(files).toEqual([]);
    expect(emitOpPython('image_preprocess', {}).code).toMatch(/MAX_SIDE = 960\nMULTIPLE = 32\nNORMALIZE = "imagenet"/);
    expect(emitOpPython('ctc_decode', { space_char: false }).code).toContain('SPACE_CHAR = False');
  });

  it('escapes string params so they cannot break out of the literal', () => {
    const evil = 'x"\n__import__("os").system("rm")\n#';
    const { code, files } = emitOpPython('ctc_decode', { dictionary: evil });
    expect(code).toContain('DICTIONARY = "x\\"\\n__import__(\\"os\\").system(\\"rm\\")\\n#"');
    expect(code.split('\n').some((l) => l.startsWith('__import__'))).toBe(false);
    expect(files).toEqual([{ from: evil, to: dictionaryTarget(evil) }]);
    expect(dictionaryTarget(evil)).toMatch(/^dict_[A-Za-z0-9_.-]+$/);
  });

  it('copies the CTC dictionary under a name derived from its path', () => {
    expect(emitOpPython('ctc_decode', {}).files).toEqual([
      { from: 'rec/ppocr_keys_v1.txt', to: 'dict_rec_ppocr_keys_v1.txt' },
    ]);
  });

  it('rejects out-of-range or mistyped params, naming op and param', () => {
    expect(() => emitOpPython('topk', { k: 0 })).toThrow(/topk: param k must be ≥ 1/);
    expect(() => emitOpPython('image_preprocess', { normalize: 'x' })).toThrow(/image_preprocess: param normalize/);
    expect(() => emitOpPython('audio_frame', { window: 1.5 })).toThrow(/audio_frame: param window must be an integer/);
  });
});
