import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePbtxt } from '@ensemble-studio/core';
import { writeFileAtomic } from './atomicWrite.ts';
import { loadRepository } from './loadRepository.ts';
import { GraphNameError, deleteGraph, saveGraph } from './saveGraph.ts';
import { PathError } from './safeJoin.ts';
import { makeTestRepository } from '../testing/testRepository.ts';

describe('saveGraph / deleteGraph', async () => {
  const dir = makeTestRepository();
  const repo = await loadRepository(dir);
  const pipe = repo.graphs.pipe!;

  it('writes studio.json, config.pbtxt and the empty version dir, and reloads to the same graph', async () => {
    const graph = { ...pipe, name: 'pipe2', description: 'copy' };
    const result = await saveGraph(repo, graph);
    expect(result.configWritten).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'pipe2', 'studio.json'), 'utf8'))).toEqual(graph);
    const parsed = parsePbtxt(readFileSync(join(dir, 'pipe2', 'config.pbtxt'), 'utf8'));
    expect(parsed.ok && parsed.config.platform).toBe('ensemble');
    expect(existsSync(join(dir, 'pipe2', '1'))).toBe(true);
    expect(repo.catalogue.models.pipe2?.platform).toBe('ensemble');
    const again = await loadRepository(dir);
    expect(again.graphs.pipe2).toEqual(graph);
  });

  it('keeps the previous config when the graph does not compile (draft)', async () => {
    const before = readFileSync(join(dir, 'pipe2', 'config.pbtxt'), 'utf8');
    const draft = { ...pipe, name: 'pipe2', edges: [] };
    const result = await saveGraph(repo, draft);
    expect(result.configWritten).toBe(false);
    expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    expect(readFileSync(join(dir, 'pipe2', 'config.pbtxt'), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(join(dir, 'pipe2', 'studio.json'), 'utf8')).edges).toEqual([]);
  });

  it('refuses names that are paths or that belong to a plain model', async () => {
    await expect(saveGraph(repo, { ...pipe, name: '../evil' })).rejects.toThrow(PathError);
    await expect(saveGraph(repo, { ...pipe, name: 'head' })).rejects.toThrow(GraphNameError);
    expect(readFileSync(join(dir, 'head', 'config.pbtxt'), 'utf8')).toContain('name: "head"');
  });

  it('deletes what it wrote and leaves other files alone', async () => {
    writeFileSync(join(dir, 'pipe2', 'notes.txt'), 'mine');
    expect(await deleteGraph(repo, 'pipe2')).toBe(true);
    expect(readdirSync(join(dir, 'pipe2'))).toEqual(['notes.txt']);
    expect(repo.graphs.pipe2).toBeUndefined();
    expect(repo.catalogue.models.pipe2).toBeUndefined();
    expect(await deleteGraph(repo, 'pipe2')).toBe(false);
    expect(await deleteGraph(repo, '../head')).toBe(false);
  });
});

describe('writeFileAtomic', () => {
  it('leaves the old file intact and no temp file when the write fails', async () => {
    const dir = makeTestRepository();
    const target = join(dir, 'file.json');
    writeFileSync(target, 'old');
    await expect(writeFileAtomic(target, { length: 1 } as unknown as string)).rejects.toThrow();
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await writeFileAtomic(target, 'new');
    expect(readFileSync(target, 'utf8')).toBe('new');
  });
});
