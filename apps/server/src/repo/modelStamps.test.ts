import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeEngineRepository } from '../testing/engineFixtureRepository.ts';
import { tempDir } from '../testing/tempDir.ts';
import { loadRepository } from './loadRepository.ts';
import { modelStamps, modelsToLoad, withStamps } from './modelStamps.ts';

const all = () => true;

describe('modelStamps', () => {
  it("changes with a model's config or a file of its latest version, and only that model's", async () => {
    const dir = tempDir('stamps-');
    writeEngineRepository(dir, ['head', 'extractor', 'vad']);
    const before = await modelStamps(await loadRepository(dir));
    const file = join(dir, 'extractor', '1', 'model.onnx');
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    writeFileSync(join(dir, 'head', 'config.pbtxt'), 'name: "head"\nbackend: "onnxruntime"\nmax_batch_size: 3\n');
    const repo = await loadRepository(dir);
    const after = await modelStamps(repo);
    expect([...after.keys()].filter((m) => before.get(m) !== after.get(m)).sort()).toEqual(['extractor', 'head']);
    // A plain model's load restarts that model alone, whatever else changed on disk.
    expect(modelsToLoad('vad', repo, before, after, all)).toEqual(new Set(['vad']));
    expect(withStamps(before, after, ['head'])).toEqual(new Map([...before, ['head', after.get('head')!]]));
  });
});

describe('modelsToLoad', () => {
  const graph = (name: string, models: string[]) => ({
    name,
    nodes: models.map((model, k) => ({ id: `n${k}`, kind: 'model', params: { model } })),
  });
  const repo = (graphs: ReturnType<typeof graph>[]) =>
    ({ graphs: Object.fromEntries(graphs.map((g) => [g.name, g])) }) as unknown as Parameters<typeof modelsToLoad>[1];
  const stamps = (entries: [string, string][]) => new Map(entries);

  it("a graph's load takes its composing models that changed, appeared or are not served, through nested graphs", () => {
    const r = repo([graph('ocr', ['det', 'inner', 'cls']), graph('inner', ['rec', 'new'])]);
    const before = stamps([
      ['det', '1'],
      ['inner', '1'],
      ['rec', '1'],
      ['cls', '1'],
      ['other', '1'],
    ]);
    const after = stamps([
      ['det', '2'],
      ['inner', '1'],
      ['rec', '2'],
      ['cls', '1'],
      ['new', '1'],
      ['other', '2'],
    ]);
    expect(modelsToLoad('ocr', r, before, after, all)).toEqual(new Set(['ocr', 'det', 'rec', 'new']));
    expect(modelsToLoad('ocr', r, after, after, (m) => m !== 'cls')).toEqual(new Set(['ocr', 'cls']));
    expect(modelsToLoad('det', r, before, after, all)).toEqual(new Set(['det']));
  });

  it('a model gone from the disk is taken (to be dropped); a graph naming itself does not loop', () => {
    const r = repo([graph('g', ['g', 'gone'])]);
    expect(modelsToLoad('g', r, stamps([['gone', '1']]), stamps([]), all)).toEqual(new Set(['g', 'gone']));
  });
});
