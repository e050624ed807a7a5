// The repository endpoints' bodies (index, load, unload): read the same whatever their size or framing, a large one
// parsed in the body worker (the thirteenth hostile round: 30 MB sent in chunks to /v2/repository/index held every
// client for seconds, and a body over 1 MiB with a Content-Length was ignored).
import { describe, expect, it } from 'vitest';
import { postChunked } from '../testing/postChunked.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';
import { readRepositoryBody } from './repositoryBody.ts';

const read = (text: string) => readRepositoryBody(Buffer.from(text));

describe('readRepositoryBody', () => {
  it('reads ready, the parameters and unload_dependents as the endpoints use them', () => {
    expect(read('')).toEqual({ ready: undefined, parameters: undefined, unloadDependents: false });
    expect(read(' {"ready": true} ')).toMatchObject({ ready: true });
    expect(read('{"ready": "yes"}').ready).toBe('other');
    expect(read('{"ready": null}').ready).toBe('other');
    expect(read('{"parameters": 3}').parameters).toBe('not-object');
    expect(read('{"parameters": {"config": "{}", "file:1/m.onnx": "b"}}').parameters).toEqual({
      named: ['config', 'file:1/m.onnx'],
      count: 2,
    });
    // The first problem in the members' order, as Triton meets them.
    expect(read('{"parameters": {"config": "{}", "file:a": 2, "nope": "x"}}').parameters).toMatchObject({
      problem: 'not-string',
    });
    expect(read('{"parameters": {"nope": "x", "file:a": 2}}').parameters).toMatchObject({ problem: 'unknown-key' });
    expect(read('{"parameters": {"unload_dependents": true}}').unloadDependents).toBe(true);
    expect(read('{"parameters": {"unload_dependents": "true"}}').unloadDependents).toBe(false);
  });

  it('takes no member from a prototype name or from JSON that is not an object', () => {
    expect(read('{"__proto__": {"ready": true, "parameters": {"unload_dependents": true}}}')).toEqual({
      ready: undefined,
      parameters: undefined,
      unloadDependents: false,
    });
    expect(read('[{"ready": true}]').ready).toBeUndefined();
  });

  it('refuses a body that is not JSON', () => {
    expect(() => read('{"ready":')).toThrow(/^the request body is not JSON: /);
  });
});

describe('repository bodies over 1 MiB on a running server', () => {
  const s = testServerPerFile();
  const pad = ' '.repeat(2 << 20);
  const names = (json: unknown) => (json as { name: string }[]).map((m) => m.name);

  it('an index asking for ready models is answered as a small one is, with a Content-Length or in chunks', async () => {
    const small = await call(`${s.url}/v2/repository/index`, 'POST', '{"ready":true}');
    expect(names(small.json)).not.toContain('bad');
    const large = await call(`${s.url}/v2/repository/index`, 'POST', `{"ready":true}${pad}`);
    expect([large.status, names(large.json)]).toEqual([200, names(small.json)]);
    const chunked = await postChunked(`${s.url}/v2/repository/index`, Buffer.from(`{"ready":true}${pad}`));
    expect([chunked.status, names(JSON.parse(chunked.text))]).toEqual([200, names(small.json)]);
  });

  it("a large body's errors are a small one's: not a boolean, not JSON, overrides named", async () => {
    const notBool = await call(`${s.url}/v2/repository/index`, 'POST', `{"ready":"yes"}${pad}`);
    expect([notBool.status, notBool.json]).toEqual([400, { error: "Invalid value for 'ready': expected a boolean" }]);
    const notJson = await postChunked(`${s.url}/v2/repository/index`, Buffer.from(`${pad}{"ready":`));
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.text).error).toMatch(/^the request body is not JSON: /);
    const config = await call(`${s.url}/v2/repository/models/head/load`, 'POST', {
      parameters: { config: 'x'.repeat(2 << 20) },
    });
    expect([config.status, config.json.error]).toEqual([
      400,
      "load of 'head' with config is not supported: the studio loads models from its repository on disk (edit the files, then load)",
    ]);
  });

  it('a load of 20,000 overrides names the first eight and counts the rest', async () => {
    const parameters = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`file:${i}`, 'x']));
    const r = await call(`${s.url}/v2/repository/models/head/load`, 'POST', { parameters });
    expect([r.status, r.json.error]).toEqual([
      400,
      "load of 'head' with file:0, file:1, file:2, file:3, file:4, file:5, file:6, file:7 and 19992 more is not supported: the studio loads models from its repository on disk (edit the files, then load)",
    ]);
  });

  it('a chunked body over maxBodyBytes is refused with 413 once read', async () => {
    const r = await postChunked(`${s.url}/v2/repository/index`, Buffer.alloc(65 << 20, 32), 1040);
    expect([r.status, JSON.parse(r.text)]).toEqual([
      413,
      { error: 'request body is over the limit maxBodyBytes=67108864' },
    ]);
  });
});
