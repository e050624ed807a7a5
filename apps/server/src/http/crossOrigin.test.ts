import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sameOriginAllowed } from './auth.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

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
    const byReferer = await call(`${s.url}/api/graphs/pipe`, 'DELETE', undefined, {
      referer: 'http://evil.example/page',
    });
    expect([byReferer.status, byReferer.json.error.message]).toEqual([
      403,
      'cross-origin DELETE refused: Referer http://evil.example/page is not this server',
    ]);
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
    const host = '127.0.0.1:8080';
    expect(sameOriginAllowed('GET', { origin: 'http://evil.example' }, host)).toBe(true);
    expect(sameOriginAllowed('POST', {}, host)).toBe(true);
    expect(sameOriginAllowed('POST', { origin: 'http://127.0.0.1:8080' }, host)).toBe(true);
    expect(sameOriginAllowed('POST', { origin: 'http://127.0.0.1:9999' }, host)).toBe(false);
    expect(sameOriginAllowed('PUT', { origin: 'null' }, host)).toBe(false);
    for (const origin of ['file://', 'chrome-extension://abc', 'http://127.0.0.1:8080, http://evil.example'])
      expect(sameOriginAllowed('POST', { origin }, host), origin).toBe(false);
  });

  it('judges a request without Origin by its Referer, and by Sec-Fetch-Site without either', () => {
    const host = '127.0.0.1:8080';
    expect(sameOriginAllowed('POST', { referer: 'http://evil.example/page' }, host)).toBe(false);
    expect(sameOriginAllowed('POST', { referer: 'not a url' }, host)).toBe(false);
    expect(sameOriginAllowed('POST', { referer: 'http://127.0.0.1:8080/editor' }, host)).toBe(true);
    expect(sameOriginAllowed('POST', { 'sec-fetch-site': 'cross-site' }, host)).toBe(false);
    expect(sameOriginAllowed('POST', { 'sec-fetch-site': 'same-site' }, host)).toBe(false);
    expect(sameOriginAllowed('POST', { 'sec-fetch-site': 'same-origin' }, host)).toBe(true);
    expect(sameOriginAllowed('POST', { 'sec-fetch-site': 'none' }, host)).toBe(true);
  });
});
