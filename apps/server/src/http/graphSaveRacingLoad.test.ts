// Saves and deletes of a graph racing repository loads of it, through the real server: a load reads the graph's
// files only between saves (never a directory a save has made and not yet filled, which read as a model without a
// config and took the name from the graph for good), and a save or delete always reaches the repository served.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkGraph } from '../testing/forkGraph.ts';
import { removeTempDir } from '../testing/tempDir.ts';
import { call, startTestServer } from '../testing/testServer.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer();
}, 60_000);
afterAll(async () => {
  await s?.close();
  removeTempDir(s.repo);
});

describe('graph saves and deletes racing loads of the graph', () => {
  it('every save and delete answers as it would alone, and the graph is served as last saved', async () => {
    const seen = new Map<string, number>();
    const note = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
    const end = Date.now() + 3000;
    const churn = async () => {
      while (Date.now() < end) {
        note(`DELETE ${(await call(`${s.url}/api/graphs/race`, 'DELETE')).status}`);
        const put = await call(`${s.url}/api/graphs/race`, 'PUT', forkGraph('race'));
        note(`PUT ${put.status}${put.status === 200 ? '' : ` ${put.text}`}`);
      }
    };
    const loads = async () => {
      while (Date.now() < end) note(`load ${(await call(`${s.url}/v2/repository/models/race/load`, 'POST')).status}`);
    };
    await Promise.all([churn(), loads(), loads()]);
    expect(seen.get('PUT 200')).toBeGreaterThan(10);
    expect([...seen.keys()].filter((k) => k.startsWith('PUT') && k !== 'PUT 200')).toEqual([]);
    expect([...seen.keys()].filter((k) => k.startsWith('load') && !/^load (200|400|404)$/.test(k))).toEqual([]);
    expect((await call(`${s.url}/api/graphs/race`)).status).toBe(200);
    expect((await call(`${s.url}/v2/repository/models/race/load`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/models/race/ready`)).status).toBe(200);
    expect((await call(`${s.url}/api/graphs/race`, 'DELETE')).status).toBe(204);
    expect(existsSync(join(s.repo, 'race'))).toBe(false);
  }, 60_000);
});
