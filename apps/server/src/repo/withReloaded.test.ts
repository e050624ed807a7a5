import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTestRepository } from '../testing/testRepository.ts';
import { loadRepository } from './loadRepository.ts';
import { withReloaded } from './withReloaded.ts';

describe('withReloaded', () => {
  it("takes the re-read directory's entries for the loaded models only; the rest stay as they were served", async () => {
    const dir = makeTestRepository();
    const served = await loadRepository(dir);
    const config = join(dir, 'head', 'config.pbtxt');
    writeFileSync(config, readFileSync(config, 'utf8').replace('max_batch_size: 8', 'max_batch_size: 4'));
    const extractorConfig = 'name: "extractor"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 2\n';
    writeFileSync(join(dir, 'extractor', 'config.pbtxt'), extractorConfig);
    cpSync(join(dir, 'head'), join(dir, 'extra'), { recursive: true });
    rmSync(join(dir, 'ghost'), { recursive: true });
    rmSync(join(dir, 'acc'), { recursive: true });
    const fresh = await loadRepository(dir);

    const repo = withReloaded(served, fresh, new Set(['head', 'ghost', 'pipe']));
    expect(repo.catalogue.models.head!.maxBatchSize).toBe(4);
    expect(repo.catalogue.models.extractor).toBe(served.catalogue.models.extractor);
    // Gone from the disk: dropped when loaded, still served otherwise; a new directory waits for its own load.
    expect(Object.keys(repo.catalogue.models)).toEqual(['acc', 'bad', 'extractor', 'head', 'pipe']);
    expect(repo.graphs.pipe).toBe(fresh.graphs.pipe);
    expect(repo.modelFile('acc')).toBe(undefined); // its file is gone from the disk
    expect(repo.modelFile('head')).toBe(join(dir, 'head', '1', 'model.onnx'));
    expect(repo.modelFile('extra')).toBe(undefined);
    expect(repo.problems).toBe(fresh.problems);
    expect(Object.getPrototypeOf(repo.catalogue.models)).toBe(null);
  });
});
