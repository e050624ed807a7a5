import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRepository } from './loadRepository.ts';
import { makeTestRepository } from '../testing/testRepository.ts';

describe('loadRepository', async () => {
  const dir = makeTestRepository();
  const repo = await loadRepository(dir);

  it('derives the signature of an ONNX model without config from onnxruntime (symbolic dims → -1, max_batch_size 0)', () => {
    const m = repo.catalogue.models.extractor!;
    expect(m.error).toBeUndefined();
    expect(m).toMatchObject({ platform: 'onnxruntime_onnx', maxBatchSize: 0, versions: [1] });
    expect(m.inputs).toEqual([{ name: 'x', datatype: 'FP32', dims: [-1, 64] }]);
    expect(m.outputs).toEqual([{ name: 'feat', datatype: 'FP32', dims: [-1, 256] }]);
  });

  it('parses config.pbtxt, keeps unknown fields and auto-completes', () => {
    const m = repo.catalogue.models.head!;
    expect(m).toMatchObject({ maxBatchSize: 8, inputs: [{ name: 'feat', dims: [256] }] });
    expect(m.config.some_future_field).toBe(7);
    expect(m.config.backend).toBe('onnxruntime');
    expect(repo.modelFile('head')).toBe(join(dir, 'head', '1', 'model.onnx'));
    expect(repo.modelFile('head', 2)).toBeUndefined();
  });

  it('lists a bad model with its error instead of throwing', () => {
    expect(repo.catalogue.models.bad?.error).toMatch(/^config\.pbtxt:4:1: /);
    expect(repo.catalogue.models.ghost?.error).toMatch(/version 1 has no model\.onnx/);
    expect(repo.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^bad: /),
      expect.stringMatching(/^ghost: /),
    ]);
    expect(repo.catalogue.models['.hidden']).toBeUndefined();
  });

  it("refuses a model whose config names another one, with Triton's words", async () => {
    const copy = makeTestRepository();
    writeFileSync(
      join(copy, 'head', 'config.pbtxt'),
      readFileSync(join(copy, 'head', 'config.pbtxt'), 'utf8').replace(/name:\s*"head"/, 'name: "extractor"'),
    );
    const loaded = await loadRepository(copy);
    expect(loaded.catalogue.models.head?.error).toBe(
      "unexpected directory name 'head' for model 'extractor', directory name must equal model name",
    );
    expect(loaded.catalogue.models.extractor?.error).toBeUndefined();
  });

  it('imports an ensemble without studio.json as a graph', () => {
    const g = repo.graphs.pipe!;
    expect(
      g.nodes
        .filter((n) => n.kind === 'model')
        .map((n) => n.kind === 'model' && n.params.model)
        .sort(),
    ).toEqual(['extractor', 'head']);
    expect(g.edges.length).toBeGreaterThanOrEqual(3);
  });

  it('prefers studio.json (migrated) over the ensemble config, and loads drafts without a config', async () => {
    const graph = { ...repo.graphs.pipe!, description: 'from studio.json' };
    writeFileSync(join(dir, 'pipe', 'studio.json'), JSON.stringify(graph));
    writeFileSync(join(dir, 'bad', 'studio.json'), '{ not json');
    const again = await loadRepository(dir);
    expect(again.graphs.pipe?.description).toBe('from studio.json');
    expect(
      again.problems.some((p) => p.code === 'graph-load' && p.message.startsWith('bad: studio.json is not JSON')),
    ).toBe(true);
  });

  it('throws only when the directory itself cannot be read', async () => {
    await expect(loadRepository(join(dir, 'nope'))).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'head', 'config.pbtxt'), 'utf8')).toContain('some_future_field');
  });
});
