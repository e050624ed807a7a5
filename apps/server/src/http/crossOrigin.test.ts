import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDir } from '../testing/tempDir.ts';
import { sameOriginAllowed } from './auth.ts';
import { call, startTestServer } from '../testing/testServer.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
  if (s) removeTempDir(s.repo);
});

const infer = JSON.stringify({
  inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0.5) }],
});

describe('requests from another origin', () => {
  it('a cross-site text/plain POST to /v2 does not run inference', async () => {
    const r = await call(`${s.url}/v2/models/extractor/infer`, 'POST', infer, {
      'content-type': 'text/plain',
      origin: 'http://evil.example',
    });
    expect(r.status).toBe(403);
    expect(r.json.error).toMatch(/cross-origin POST refused: Origin http:\/\/evil\.example/);
  });

  it('a cross-site PUT or DELETE on /api writes nothing', async () => {
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json;
    const put = await call(
      `${s.url}/api/graphs/planted`,
      'PUT',
      { graph: { ...pipe, name: 'planted' } },
      { origin: 'http://evil.example' },
    );
    expect([put.status, put.json.error.code]).toEqual([403, 'cross-origin']);
    expect(existsSync(join(s.repo, 'planted'))).toBe(false);
    expect((await call(`${s.url}/api/graphs/pipe`, 'DELETE', undefined, { origin: 'null' })).status).toBe(403);
    expect((await call(`${s.url}/api/graphs/pipe`)).status).toBe(200);
  });

  it("the studio's own page and clients without an Origin (curl, Triton clients) are served", async () => {
    const own = await call(`${s.url}/v2/models/extractor/infer`, 'POST', infer, { origin: s.url });
    expect(own.status).toBe(200);
    expect(
      (await call(`${s.url}/v2/models/extractor/infer`, 'POST', infer, { 'content-type': 'text/plain' })).status,
    ).toBe(200);
    expect((await call(`${s.url}/api/health`, 'GET', undefined, { origin: 'http://evil.example' })).status).toBe(200);
  });
});

describe('sameOriginAllowed', () => {
  it('allows safe methods and same-origin or Origin-less writes only', () => {
    expect(sameOriginAllowed('GET', 'http://evil.example', '127.0.0.1:8080')).toBe(true);
    expect(sameOriginAllowed('POST', undefined, '127.0.0.1:8080')).toBe(true);
    expect(sameOriginAllowed('POST', 'http://127.0.0.1:8080', '127.0.0.1:8080')).toBe(true);
    expect(sameOriginAllowed('POST', 'http://127.0.0.1:9999', '127.0.0.1:8080')).toBe(false);
    expect(sameOriginAllowed('PUT', 'null', '127.0.0.1:8080')).toBe(false);
  });
});
