import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeEngineRepository } from '../testing/engineFixtureRepository.ts';
import { tempDir } from '../testing/tempDir.ts';
import { loadRepository } from './loadRepository.ts';
import { modelStamps, modelsToReload } from './modelStamps.ts';

describe('modelStamps', () => {
  it("changes with a model's config or a file of its latest version, and only that model's", async () => {
    const dir = tempDir('stamps-');
    writeEngineRepository(dir, ['head', 'extractor', 'vad']);
    const before = await modelStamps(await loadRepository(dir));
    const file = join(dir, 'extractor', '1', 'model.onnx');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    writeFileSync(join(dir, 'head', 'config.pbtxt'), 'name: "head"\nbackend: "onnxruntime"\nmax_batch_size: 3\n');
    const after = await modelStamps(await loadRepository(dir));
    expect(modelsToReload('vad', before, after)).toEqual(new Set(['vad', 'head', 'extractor']));
    expect(modelsToReload('vad', after, after)).toEqual(new Set(['vad']));
  });

  it('names models that appeared or went away', () => {
    const before = new Map([
      ['a', '1'],
      ['b', '1'],
    ]);
    const after = new Map([
      ['b', '1'],
      ['c', '1'],
    ]);
    expect(modelsToReload('x', before, after)).toEqual(new Set(['x', 'a', 'c']));
  });
});
