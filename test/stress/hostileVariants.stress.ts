// Hostile input, third round: variations of the seventeen classes that a later independent probe of the real
// `studio serve` found getting through (other headers carrying a page's origin, malformed Host headers, binary data
// no input claims, bodies cheap in bytes but costly in objects, a config naming another model). Each asserts the
// refusal and that a bystander's /v2/health/ready kept answering while it was in flight.
import { request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExamples, http, spawnStudio } from '../support/server.ts';
import { connect } from '../support/wsClient.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(async () => {
  const repo = copyExamples({ linkModels: true });
  // head_b's config names head_a: Triton refuses to load it (two directories would serve one name).
  const config = readFileSync(join(repo, 'head_a', 'config.pbtxt'), 'utf8');
  writeFileSync(join(repo, 'head_b', 'config.pbtxt'), config);
  return spawnStudio(repo);
});
const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  http(`${studio.url}${path}`, { method: 'POST', body, headers });
const x64 = () => ({ name: 'x', datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0.5) });
const infer = JSON.stringify({ inputs: [x64()] });

/** Status of a GET sent with exactly this Host header (fetch picks its own). */
function statusWithHost(host: string): Promise<number> {
  const u = new URL(studio.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: u.hostname, port: u.port, path: '/api/graphs', headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hostile input against studio serve, third round', () => {
  it("a POST that names another site's page by Referer or Sec-Fetch-Site alone does not run inference", async () => {
    const pages: Record<string, string>[] = [
      { referer: 'http://evil.example/page', 'content-type': 'text/plain' },
      { 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
    ];
    for (const headers of pages) {
      const r = await probe(`cross-site ${Object.keys(headers)[0]}`, () =>
        post('/v2/models/extractor/infer', infer, headers),
      );
      expect(r.status, JSON.stringify(headers)).toBe(403);
    }
    expect((await post('/v2/models/extractor/infer', infer, { referer: `${studio.url}/` })).status).toBe(200);
  });

  it('a Host header with a user part is not a loopback name', async () => {
    expect(await probe('Host localhost:1@evil.example', () => statusWithHost('localhost:1@evil.example'))).toBe(403);
  });

  it("binary data that no input's binary_data_size claims is refused with Triton's words", async () => {
    const header = Buffer.from(
      JSON.stringify({ inputs: [{ ...x64(), data: undefined, parameters: { binary_data_size: 256 } }] }),
    );
    const body = Buffer.concat([header, Buffer.alloc(260)]);
    const r = await probe('binary data past binary_data_size', () =>
      post('/v2/models/extractor/infer', body, {
        'content-type': 'application/octet-stream',
        'inference-header-content-length': String(header.byteLength),
      }),
    );
    expect([r.status, r.json.error]).toEqual([400, "unexpected additional input data for model 'extractor'"]);
  });

  it('200,000 one-element inputs are refused where they are parsed, over KServe and WebSocket', async () => {
    const inputs = Array.from({ length: 200_000 }, (_, i) => ({
      name: `i${i}`,
      datatype: 'FP32',
      shape: [1],
      data: [1],
    }));
    const body = Buffer.from(JSON.stringify({ inputs }));
    const r = await probe('200k inputs on /infer', () => post('/v2/models/extractor/infer', body));
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(
      /^\[request id: <id_unknown>\] expected 1 inputs but got 200000 inputs for model 'extractor'\. Got input\(s\) \['i0',/,
    );
    const record = Object.fromEntries(inputs.map(({ name, ...t }) => [name, t]));
    const message = JSON.stringify({ type: 'run.start', requestId: 'many', graph: 'extractor', inputs: record });
    const reply = await probe('200k inputs on WebSocket', async () => {
      const c = await connect(studio.url);
      try {
        c.sendRaw(message);
        return await c.next((m) => m.type === 'error' && m.ref === 'many', 60_000);
      } finally {
        c.close();
      }
    });
    expect(reply.error.message).toBe('run.start has 200000 inputs: over the limit maxGraphNodes=1024');
  });

  it('bodies small in bytes but deep in arrays are refused without holding the main thread', async () => {
    // Built before the clock starts: the bystander asks from this process.
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const apiBody = Buffer.from(`{"graph":${deep(1e6)}}`);
    const kserveBody = Buffer.from(
      `{"inputs":[{"name":"x","datatype":"FP32","shape":[1,64],"data":${deep(450_000)}}]}`,
    );
    const api = await probe('2 MB of [[[[ to /api/validate', () => post('/api/validate', apiBody));
    expect([api.status, api.json.error.code]).toEqual([413, 'too-large']);
    const kserve = await probe('900 KB of [[[[ to /infer', () => post('/v2/models/extractor/infer', kserveBody));
    expect(kserve.status).toBe(400);
  });

  it('a model whose config names another is unavailable everywhere, with the reason Triton gives', async () => {
    const index = await probe('repository index', () => post('/v2/repository/index', '{}'));
    expect((index.json as { name: string }[]).find((e) => e.name === 'head_b')).toMatchObject({
      state: 'UNAVAILABLE',
      reason: expect.stringContaining(
        "unexpected directory name 'head_b' for model 'head_a', directory name must equal model name",
      ),
    });
    expect((await http(`${studio.url}/v2/models/head_b/ready`)).status).toBe(400);
    expect((await http(`${studio.url}/v2/models/head_a/ready`)).status).toBe(200);
  });
});
