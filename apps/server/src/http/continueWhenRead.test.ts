import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile({ limits: { maxBodyBytes: 1_000_000, maxApiBodyBytes: 100_000 } });

/**
 * Sends a POST's head (with `Connection: close` unless `keepAlive`) and, once the server says `100 Continue`, `body`;
 * resolves with all the server sent when it closes the connection.
 */
function post(path: string, headers: Record<string, string>, body = '', keepAlive = false): Promise<string> {
  const u = new URL(s.url);
  const head = Object.entries({ Host: u.host, ...(keepAlive ? {} : { Connection: 'close' }), ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname);
    let got = '';
    sock.on('data', (d) => {
      const before = got;
      got += d.toString('latin1');
      if (!before.includes('100 Continue') && got.includes('HTTP/1.1 100 Continue\r\n\r\n')) sock.write(body);
    });
    sock.on('end', () => resolve(got));
    sock.on('error', reject);
    sock.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
  });
}

const expectContinue = { Expect: '100-continue', 'Content-Type': 'application/json' };

describe('Expect: 100-continue', () => {
  it('a body announced over the limit gets its 413 alone: no 100 Continue before it', async () => {
    const kserve = await post('/v2/models/extractor/infer', { ...expectContinue, 'Content-Length': '2000000' });
    expect(kserve).toMatch(/^HTTP\/1\.1 413 /);
    expect(kserve).not.toContain('100 Continue');
    expect(kserve).toContain('{"error":"request body is over the limit maxBodyBytes=1000000"}');
    const api = await post('/api/validate', { ...expectContinue, 'Content-Length': '200000' });
    expect(api).toMatch(/^HTTP\/1\.1 413 /);
    expect(api).not.toContain('100 Continue');
  });

  it('an acceptable body is asked for with 100 Continue and served', async () => {
    const body = JSON.stringify({
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(1) }],
    });
    const got = await post(
      '/v2/models/extractor/infer',
      { ...expectContinue, 'Content-Length': String(Buffer.byteLength(body)) },
      body,
    );
    expect(got).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(got).toContain('"name":"feat"');
  });

  it('Host and Origin are judged first, as for any request, and their refusals come without a 100', async () => {
    const cases: Record<string, string>[] = [
      { Host: 'evil.example', 'Content-Length': '2000000' },
      { Origin: 'http://evil.example', 'Content-Length': '2000000' },
      { Origin: 'http://evil.example', 'Content-Length': '10' },
    ];
    for (const headers of cases) {
      const plain = await post('/v2/models/extractor/infer', { 'Content-Type': 'application/json', ...headers });
      const expecting = await post('/v2/models/extractor/infer', { ...expectContinue, ...headers });
      expect(expecting).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(expecting.split('\r\n')[0]).toBe(plain.split('\r\n')[0]);
      expect(expecting.split('\r\n\r\n')[1]).toBe(plain.split('\r\n\r\n')[1]);
    }
  });

  it('a refusal sent before the body was asked for closes a kept-alive connection (Node does): the body never comes', async () => {
    const got = await post(
      '/v2/models/extractor/infer',
      { ...expectContinue, Origin: 'http://evil.example', 'Content-Length': '10' },
      '',
      true,
    );
    expect(got).toMatch(/^HTTP\/1\.1 403 /);
    expect(got.split('\r\n\r\n')[0]!.toLowerCase()).toContain('connection: close');
  });

  it("a request refused from its model (unknown, not ready) or its path gets Triton's answer alone: no 100 Continue", async () => {
    const cases: [string, RegExp, string][] = [
      ['/v2/models/nope/infer', /^HTTP\/1\.1 404 /, `{"error":"Request for unknown model: 'nope' is not found"}`],
      ['/v2/models/nope/generate', /^HTTP\/1\.1 404 /, `{"error":"Request for unknown model: 'nope' is not found"}`],
      ['/v2/models/nope/generate_stream', /^HTTP\/1\.1 404 /, "unknown model: 'nope'"],
      ['/v2/models/ghost/infer', /^HTTP\/1\.1 503 /, "model 'ghost' is not ready"],
      ['/v2/models/extractor/nothing', /^HTTP\/1\.1 404 /, 'no such endpoint POST /v2/models/extractor/nothing'],
      ['/api/nothing', /^HTTP\/1\.1 404 /, 'no API route POST /api/nothing'],
    ];
    for (const [path, status, words] of cases) {
      const got = await post(path, { ...expectContinue, 'Content-Length': '500' }, 'x'.repeat(500), true);
      expect(got, path).toMatch(status);
      expect(got, path).not.toContain('100 Continue');
      expect(got, path).toContain(words);
      // No 100 was sent, so the body may never come: Node closes the connection after the answer.
      expect(got.split('\r\n\r\n')[0]!.toLowerCase(), path).toContain('connection: close');
    }
  });

  it('a graph saved under a name that is not one gets its 400 alone', async () => {
    const u = new URL(s.url);
    const got = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(u.port), u.hostname);
      let text = '';
      sock.on('data', (d) => (text += d.toString('latin1')));
      sock.on('end', () => resolve(text));
      sock.on('error', reject);
      const head = `Host: ${u.host}\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 50`;
      sock.write(`PUT /api/graphs/bad%21name HTTP/1.1\r\n${head}\r\n\r\n`);
    });
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expect(got).not.toContain('100 Continue');
    expect(got).toContain('is not a valid graph name');
  });

  it('without Expect, a body refused from its model is drained and the kept-alive connection serves the next request', async () => {
    const u = new URL(s.url);
    const body = 'y'.repeat(300_000);
    const got = await new Promise<string>((resolve, reject) => {
      const sock = connect(Number(u.port), u.hostname);
      let text = '';
      sock.on('data', (d) => {
        text += d.toString('latin1');
        if (/HTTP\/1\.1 200 [^]*\r\n\r\n/.test(text)) sock.end();
      });
      sock.on('end', () => resolve(text));
      sock.on('error', reject);
      sock.write(`POST /v2/models/nope/infer HTTP/1.1\r\nHost: ${u.host}\r\nContent-Length: ${body.length}\r\n\r\n`);
      sock.write(body);
      sock.write(`GET /v2/health/live HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`);
    });
    expect(got).toMatch(/^HTTP\/1\.1 404 /);
    expect(got).toMatch(/\r\n\r\n\{"error":"Request for unknown model: 'nope' is not found"\}HTTP\/1\.1 200 /);
  });
});
