import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileGraph, type GraphDoc } from '@ensemble-studio/core';
import { removeTempDir, tempDir } from '../testing/tempDir.ts';
import { COMMIT_JOURNAL, commitFiles } from './commitFiles.ts';
import { loadRepository } from './loadRepository.ts';
import { deleteGraph, saveGraph } from './saveGraph.ts';
import { makeTestRepository } from '../testing/testRepository.ts';

/** A test repository inside a directory this test removes. */
function repositoryDir(): string {
  const dir = join(tempDir('commit-repo-'), 'repo');
  const made = makeTestRepository();
  cpSync(made, dir, { recursive: true });
  removeTempDir(made);
  return dir;
}

/** Whether `<name>/config.pbtxt` on disk is what `<name>/studio.json` compiles to. */
function filesAgree(dir: string, name: string, catalogueDir: Awaited<ReturnType<typeof loadRepository>>): boolean {
  const graph = JSON.parse(readFileSync(join(dir, name, 'studio.json'), 'utf8')) as GraphDoc;
  const compiled = compileGraph(graph, catalogueDir.catalogue).files.find(
    (f) => f.path === `${name}/config.pbtxt`,
  )?.text;
  return compiled === readFileSync(join(dir, name, 'config.pbtxt'), 'utf8');
}

describe('saves a crash cannot leave half-done', () => {
  it('an interrupted commit is rolled forward at the next start, and stray temp files are swept', async () => {
    const dir = repositoryDir();
    const g = join(dir, 'pipe');
    writeFileSync(join(g, 'config.pbtxt'), 'old config');
    // the state a kill leaves between the two renames: journal written, studio.json renamed, config.pbtxt not yet
    writeFileSync(
      join(g, '.config.pbtxt.999.2.tmp'),
      readFileSync(join(dir, 'pipe', 'config.pbtxt'), 'utf8').replace(
        'old config',
        'name: "pipe"\nplatform: "ensemble"\n',
      ),
    );
    writeFileSync(
      join(g, COMMIT_JOURNAL),
      JSON.stringify({
        renames: [
          ['.studio.json.999.1.tmp', 'studio.json'],
          ['.config.pbtxt.999.2.tmp', 'config.pbtxt'],
        ],
      }),
    );
    writeFileSync(join(dir, 'head', '.studio.json.998.7.tmp'), 'a save that never reached its journal');
    const repo = await loadRepository(dir);
    expect(readFileSync(join(g, 'config.pbtxt'), 'utf8')).toContain('platform: "ensemble"');
    expect(readdirSync(g).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(readdirSync(join(dir, 'head')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(repo.problems.map((p) => p.message)).toEqual(
      expect.arrayContaining([
        'pipe: completed an interrupted save: config.pbtxt',
        'head: removed 1 temp file(s) of an interrupted save',
      ]),
    );
  });

  it('a journal never renames outside its directory', async () => {
    const dir = tempDir('commit-journal-');
    writeFileSync(join(dir, '.x.1.1.tmp'), 'x');
    writeFileSync(join(dir, COMMIT_JOURNAL), JSON.stringify({ renames: [['.x.1.1.tmp', '../escaped']] }));
    const { recoverCommits } = await import('./commitFiles.ts');
    await recoverCommits(dir);
    expect(existsSync(join(dir, '..', 'escaped'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('commitFiles writes every file and leaves no journal or temp file', async () => {
    const dir = tempDir('commit-files-');
    await commitFiles(dir, { 'a.json': '1', 'b.txt': '2' });
    expect(readdirSync(dir).sort()).toEqual(['a.json', 'b.txt']);
  });

  it('saves and deletes of one graph racing each other never fail with ENOENT', async () => {
    const dir = repositoryDir();
    const repo = await loadRepository(dir);
    const pipe = repo.graphs.pipe!;
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      ops.push(
        saveGraph(repo, { ...pipe, name: 'race', description: `v${i}` }),
        saveGraph(repo, { ...pipe, name: 'race', description: `w${i}` }),
        deleteGraph(repo, 'race'),
      );
    }
    const results = await Promise.allSettled(ops);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(existsSync(join(dir, 'race'))).toBe(false);
  });

  it(
    'kill -9 during saves leaves studio.json and config.pbtxt agreeing, with no temp files',
    { timeout: 120_000 },
    async () => {
      const dir = repositoryDir();
      const base = (await loadRepository(dir)).graphs.pipe!;
      for (let trial = 0; trial < 5; trial++) {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', join(import.meta.dirname, '../testing/saveLoopChild.ts'), dir, JSON.stringify(base)],
          { stdio: ['ignore', 'pipe', 'inherit'] },
        );
        await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
        await new Promise((r) => setTimeout(r, 50 + trial * 40));
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
        const repo = await loadRepository(dir);
        expect(filesAgree(dir, 'crash', repo), `trial ${trial}`).toBe(true);
        expect(readdirSync(join(dir, 'crash')).filter((f) => f.startsWith('.'))).toEqual([]);
      }
    },
  );
});
