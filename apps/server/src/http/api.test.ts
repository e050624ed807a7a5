import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import { makeTestRepository } from '../testing/testRepository.ts';
import { call, startTestServer } from '../testing/testServer.ts';
import { tempDir } from '../testing/tempDir.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
let web: string;
beforeAll(async () => {
  web = tempDir('web-');
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>studio</title>');
  mkdirSync(join(web, 'assets'));
  writeFileSync(join(web, 'assets', 'app.js'), 'console.log(1)');
  s = await startTestServer({ webDist: web, limits: { maxBodyBytes: 200_000 }, importRoots: [join(web, '..')] });
});
afterAll(async () => s?.close());

describe('/api', () => {
  it('health reports the repository, the engine and its execution providers', async () => {
    const r = await call(`${s.url}/api/health`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, protocol: 1, models: 6, graphs: 1, problems: 2 });
    expect(r.json.engine.executionProviders.available).toContain('cpu');
  });

  it('catalogue lists models with signatures, configs and load errors', async () => {
    const r = await call(`${s.url}/api/catalogue`);
    expect(r.json.models.head.inputs).toEqual([{ name: 'feat', datatype: 'FP32', dims: [256] }]);
    expect(r.json.models.head.config.some_future_field).toBe(7);
    expect(r.json.models.bad.error).toMatch(/config\.pbtxt:4:1/);
  });

  it('graphs: list, get, save (atomic files on disk), delete', async () => {
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
    expect(pipe.name).toBe('pipe');
    const copy = { ...pipe, name: 'copy', description: 'saved over HTTP' };
    const put = await call(`${s.url}/api/graphs/copy`, 'PUT', { graph: copy });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ saved: 'copy', configWritten: true });
    expect(JSON.parse(readFileSync(join(s.repo, 'copy', 'studio.json'), 'utf8')).description).toBe('saved over HTTP');
    expect((await call(`${s.url}/api/graphs`)).json.graphs.map((g: { name: string }) => g.name)).toEqual([
      'copy',
      'pipe',
    ]);
    expect((await call(`${s.url}/v2/models/copy`)).json.platform).toBe('ensemble');
    expect((await call(`${s.url}/api/graphs/copy`, 'DELETE')).status).toBe(204);
    expect(existsSync(join(s.repo, 'copy', 'studio.json'))).toBe(false);
    expect((await call(`${s.url}/api/graphs/copy`)).status).toBe(404);
  });

  it.each([
    ['/api/graphs/..%2F..%2Fetc', 400, 'bad-name'],
    ['/api/graphs/a..b', 400, 'bad-name'],
    ['/api/graphs/a%00b', 400, 'bad-name'],
    ['/api/graphs/nope', 404, 'not-found'],
  ])('GET %s → %i %s', async (path, status, code) => {
    const r = await call(`${s.url}${path}`);
    expect(r.status).toBe(status);
    expect(r.json.error.code).toBe(code);
  });

  it('refuses to save over a plain model, a name mismatch, or a malformed document', async () => {
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
    expect((await call(`${s.url}/api/graphs/head`, 'PUT', { ...pipe, name: 'head' })).json.error.code).toBe(
      'name-taken',
    );
    expect((await call(`${s.url}/api/graphs/other`, 'PUT', pipe)).json.error.code).toBe('name-mismatch');
    const bad = await call(`${s.url}/api/graphs/x`, 'PUT', { graph: { nodes: 'no' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('bad-graph');
    expect(readFileSync(join(s.repo, 'head', 'config.pbtxt'), 'utf8')).toContain('name: "head"');
  });

  it('validate, compile (file map and node preview) and export (zip)', async () => {
    const v = await call(`${s.url}/api/validate`, 'POST', { graph: 'pipe' });
    expect(v.json.ok).toBe(true);
    const c = await call(`${s.url}/api/compile`, 'POST', { graph: 'pipe' });
    expect(c.json.ok).toBe(true);
    expect(c.json.files.map((f: { path: string }) => f.path)).toContain('pipe/config.pbtxt');
    const node = await call(`${s.url}/api/compile`, 'POST', { graph: 'pipe', nodeId: 'head' });
    expect(node.json.files.some((f: { path: string }) => f.path === 'head/config.pbtxt')).toBe(true);
    expect((await call(`${s.url}/api/compile`, 'POST', { graph: 'pipe', nodeId: 'ghost' })).status).toBe(404);
    const zip = await fetch(`${s.url}/api/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ graph: 'pipe' }),
    });
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(zip.headers.get('content-disposition')).toContain('pipe.zip');
    const entries = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    expect(Object.keys(entries)).toEqual(
      expect.arrayContaining(['pipe/config.pbtxt', 'head/1/model.onnx', 'extractor/1/model.onnx']),
    );
  });

  it('export refuses a graph that does not compile, with its diagnostics', async () => {
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
    const r = await call(`${s.url}/api/export`, 'POST', { graph: { ...pipe, edges: [] } });
    expect(r.status).toBe(422);
    expect(r.json.error.details.length).toBeGreaterThan(0);
  });

  it('malformed JSON, oversize bodies and unknown routes get JSON errors', async () => {
    const bad = await call(`${s.url}/api/validate`, 'POST', '{"graph": ');
    expect([bad.status, bad.json.error.code]).toEqual([400, 'bad-json']);
    const big = await call(`${s.url}/api/validate`, 'POST', { graph: 'x'.repeat(300_000) });
    expect(big.status).toBe(413);
    expect(big.json.error.message).toMatch(/maxBodyBytes=200000/);
    expect((await call(`${s.url}/api/validate`, 'POST', {})).json.error.code).toBe('bad-request');
    expect((await call(`${s.url}/api/nope`)).status).toBe(404);
  });

  it('import opens another repository and serves it', async () => {
    const other = makeTestRepository();
    writeFileSync(
      join(other, 'pipe', 'studio.json'),
      JSON.stringify({ ...(await call(`${s.url}/api/graphs/pipe`)).json, description: 'other repo' }),
    );
    const r = await call(`${s.url}/api/import`, 'POST', { dir: other });
    expect(r.status).toBe(200);
    expect(r.json.dir).toBe(other);
    expect((await call(`${s.url}/api/graphs/pipe`)).json.description).toBe('other repo');
    expect((await call(`${s.url}/api/import`, 'POST', { dir: join(other, 'missing') })).json.error.code).toBe(
      'bad-repository',
    );
  });

  it('serves the web app with an SPA fallback, but not for API paths', async () => {
    expect((await call(`${s.url}/`)).text).toContain('<title>studio</title>');
    expect((await call(`${s.url}/graphs/ocr`)).text).toContain('<title>studio</title>');
    expect((await call(`${s.url}/assets/app.js`)).text).toBe('console.log(1)');
    expect((await call(`${s.url}/api/unknown`)).json.error.code).toBe('not-found');
  });
});

describe('token', () => {
  it('requires the bearer token on /api, /v2 and /metrics when the server has one', async () => {
    const t = await startTestServer({ token: 'secret-token-1' });
    try {
      for (const p of ['/api/health', '/v2/models/pipe', '/metrics'])
        expect((await call(`${t.url}${p}`)).status).toBe(401);
      expect(
        (await call(`${t.url}/api/health`, 'GET', undefined, { authorization: 'Bearer wrong-token-1' })).status,
      ).toBe(401);
      expect(
        (await call(`${t.url}/api/health`, 'GET', undefined, { authorization: 'Bearer secret-token-1' })).status,
      ).toBe(200);
    } finally {
      await t.close();
    }
  });
});
