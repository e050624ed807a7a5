import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestRepository } from '../testing/testRepository.ts';
import { removeTempDir, tempDir } from '../testing/tempDir.ts';
import { call, startTestServer } from '../testing/testServer.ts';

/** A copy of the test repository at `dir`. */
function repositoryAt(dir: string): string {
  const made = makeTestRepository();
  cpSync(made, dir, { recursive: true });
  removeTempDir(made);
  return dir;
}

let root: string;
let outside: string;
let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  root = tempDir('import-root-');
  outside = tempDir('import-outside-');
  repositoryAt(join(root, 'allowed'));
  repositoryAt(join(outside, 'repo'));
  mkdirSync(join(root, 'links'));
  symlinkSync(join(outside, 'repo'), join(root, 'links', 'escape'));
  s = await startTestServer({ importRoots: [root] });
});
afterAll(async () => {
  await s?.close();
  if (s) removeTempDir(s.repo);
});

describe('/api/import opens only repositories under the roots the server was started with', () => {
  it.each([
    ['a system directory', () => '/etc'],
    ['a repository outside the roots', () => join(outside, 'repo')],
    ['the parent of the root', () => join(root, '..')],
    ['a relative path climbing out', () => relative(process.env.INIT_CWD ?? process.cwd(), join(outside, 'repo'))],
    ['a symlink inside the root that points outside it', () => join(root, 'links', 'escape')],
    ['/proc/self/cwd', () => '../../../../../../../../proc/self/cwd'],
  ])('refuses %s with 403', async (_what, dir) => {
    const r = await call(`${s.url}/api/import`, 'POST', { dir: dir() });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('import-not-allowed');
    expect((await call(`${s.url}/api/health`)).json.repository).toBe(s.repo);
  });

  it('opens a repository under a root; saves then write inside it', async () => {
    const r = await call(`${s.url}/api/import`, 'POST', { dir: join(root, 'allowed') });
    expect(r.status).toBe(200);
    expect(r.json.dir).toBe(join(root, 'allowed'));
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json;
    expect((await call(`${s.url}/api/graphs/copy`, 'PUT', { graph: { ...pipe, name: 'copy' } })).status).toBe(200);
    expect((await call(`${s.url}/api/health`)).json.repository).toBe(join(root, 'allowed'));
  });

  it('opens one repository at a time: concurrent imports are refused while one loads', async () => {
    const statuses = await Promise.all(
      [1, 2, 3, 4].map(() => call(`${s.url}/api/import`, 'POST', { dir: join(root, 'allowed') }).then((r) => r.status)),
    );
    expect(statuses.filter((x) => x === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((x) => x !== 200).every((x) => x === 409)).toBe(true);
    expect(statuses).toContain(409);
  });

  it('a server started without import roots opens no other repository', async () => {
    const t = await startTestServer();
    try {
      const r = await call(`${t.url}/api/import`, 'POST', { dir: join(root, 'allowed') });
      expect([r.status, r.json.error.code]).toEqual([403, 'import-not-allowed']);
      expect(r.json.error.message).toMatch(/--import-root/);
    } finally {
      await t.close();
      removeTempDir(t.repo);
    }
  });
});
