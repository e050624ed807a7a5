// Hostile input, one representative request per class of attack that once got through, against the real `studio
// serve` process over a private copy of the examples. Each asserts the refusal (or the safe answer) and that a
// bystander's /v2/health/ready kept answering while it was in flight; the latencies and the server's RSS are printed.
// A change that reopens a class fails here.
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExamples, http, spawnStudio } from '../support/server.ts';
import { PROTOTYPE_NAMES } from '../support/hostileNames.ts';
import { connect, type Msg, type TestSocket } from '../support/wsClient.ts';
import { largeInferBody, probedStudio } from './hostileProbe.ts';

const MAX_MESSAGE = 1100;
const STRAY_TEMP = '.studio.json.424242.1.tmp';

let repo: string;
const { studio, probe } = probedStudio(async () => {
  repo = copyExamples({ linkModels: true });
  // A model corrupted before start (a new file, not written through the link to the examples' own).
  unlinkSync(join(repo, 'cls', '1', 'model.onnx'));
  writeFileSync(join(repo, 'cls', '1', 'model.onnx'), 'not an onnx model');
  // The temp file an interrupted save leaves behind.
  writeFileSync(join(repo, 'shared-features', STRAY_TEMP), '{"half":');
  return spawnStudio(repo);
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  http(`${studio.url}${path}`, {
    method: 'POST',
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    headers,
  });
const x64 = (v = 0.5) => ({ datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(v) });
const x8 = (v: number) => ({ x: { datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(v) } });
const isError = (ref: string) => (m: Msg) => m.type === 'error' && m.ref === ref;

async function withSocket<T>(fn: (c: TestSocket) => Promise<T>): Promise<T> {
  const c = await connect(studio.url);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

describe('hostile input against studio serve', () => {
  it('1: names that are keys of Object.prototype are unknown names, and a graph saved as one replaces no prototype', async () => {
    await probe('1 prototype names', async () => {
      for (const name of PROTOTYPE_NAMES) {
        expect((await http(`${studio.url}/v2/models/${name}`)).status, name).toBe(404);
        expect((await post('/api/validate', { graph: name })).status, name).toBe(404);
      }
      const doc = (await http(`${studio.url}/api/graphs/shared-features`)).json;
      const put = await http(`${studio.url}/api/graphs/__proto__`, {
        method: 'PUT',
        body: JSON.stringify({ graph: { ...doc, name: '__proto__' } }),
      });
      expect(put.status, put.text).toBe(200);
      expect((await http(`${studio.url}/api/graphs/nodes`)).status).toBe(404);
      expect((await http(`${studio.url}/api/graphs/__proto__`, { method: 'DELETE' })).status).toBe(204);
      expect((await http(`${studio.url}/v2/models/__proto__`)).status).toBe(404);
    });
  });

  it('2: /api/import opens no directory the server was not given', async () => {
    const r = await probe('2 import /etc', () => post('/api/import', { dir: '/etc' }));
    expect(r.status).toBe(403);
  });

  it('3: a 60 MB JSON infer body and a 34 MB WebSocket message are refused without stalling anyone', async () => {
    // Encoded before the clock starts: encoding 60 MB of text would block this process's bystander, not the server.
    const body = Buffer.from(largeInferBody(60 * 1024 * 1024));
    const r = await probe('3 60 MB JSON infer body', () => post('/v2/models/extractor/infer', body));
    expect(r.status, r.text.slice(0, 200)).toBe(400);
    console.log(`60 MB JSON infer body → ${r.status} ${r.text.slice(0, 160)}`);
    const ws = largeInferBody(34 * 1024 * 1024)
      .replace('{"inputs":[{"name":"x",', '{"x":{')
      .replace(']}]}', ']}}');
    const message = `{"type":"run.start","requestId":"big","graph":"extractor","inputs":${ws}}`;
    const reply = await probe('3 34 MB WebSocket run.start', () =>
      withSocket(async (c) => {
        c.sendRaw(message);
        return c.next((m) => isError('big')(m) || m.type === 'run.failed', 120_000);
      }),
    );
    expect(reply.error.code).not.toBe('internal');
    console.log(`34 MB WebSocket run.start → ${reply.type} ${reply.error.code}: ${reply.error.message.slice(0, 160)}`);
  });

  it('4: binary frames a message did not announce are refused', async () => {
    const reply = await probe('4 announced binary frame 100000', () =>
      withSocket(async (c) => {
        c.send({ type: 'run.start', requestId: 'f', graph: 'extractor', inputs: { x: { ...x64(), binary: 100000 } } });
        return c.next(isError('f'));
      }),
    );
    expect(reply.error.code).toBe('bad-message');
  });

  it('5: /generate applies the element limit and the element checks', async () => {
    const over = Buffer.from(`{"x":[${'0,'.repeat(17_000_000)}0]}`);
    const big = await probe('5 /generate 17 M elements', () => post('/v2/models/extractor/generate', over));
    expect(big.status).toBe(400);
    expect(big.json.error).toMatch(/maxTensorElements/);
    const abc = await probe('5 /generate "abc" elements', () =>
      post('/v2/models/extractor/generate', { x: new Array(64).fill('abc') }),
    );
    expect(abc.status).toBe(400);
  });

  it('6: timeoutMs above 2^31-1 is refused', async () => {
    const reply = await probe('6 timeoutMs 2^31', () =>
      withSocket(async (c) => {
        c.send({ type: 'run.start', requestId: 't', graph: 'extractor', inputs: { x: x64() }, timeoutMs: 2 ** 31 });
        return c.next(isError('t'));
      }),
    );
    expect(reply.error.code).toBe('bad-message');
  });

  it('7 and 8: inline graph names do not grow /metrics; a 2000-way copy router is refused', async () => {
    const doc = (await http(`${studio.url}/api/graphs/shared-features`)).json;
    await probe('7 30 inline graphs with made-up names', () =>
      withSocket(async (c) => {
        for (let i = 0; i < 30; i++) {
          const from = c.messages.length;
          c.send({
            type: 'run.start',
            requestId: `m${i}`,
            graph: { ...doc, name: `made_up_${i}` },
            inputs: { x: x64() },
          });
          await c.next((m) => m.type === 'run.completed', 60_000, from);
        }
      }),
    );
    expect((await http(`${studio.url}/metrics`)).text).not.toMatch(/made_up_/);
    const fan = {
      ...doc,
      nodes: doc.nodes.map((n: { kind: string; params: object }) =>
        n.kind === 'router' ? { ...n, params: { ...n.params, count: 2000 } } : n,
      ),
    };
    const reply = await probe('8 copy router count 2000', () =>
      withSocket(async (c) => {
        c.send({ type: 'run.start', requestId: 'fan', graph: fan, inputs: { x: x64() } });
        return c.next(isError('fan'));
      }),
    );
    expect(reply.error.message).toMatch(/maxRouterOutputs/);
  });

  it('9: one client holds at most maxSequencesPerClient streams, and a stream the engine idled out frees its slot', async () => {
    await probe('9 65 streams on one socket, one idled out', () =>
      withSocket(async (c) => {
        for (let i = 0; i < 65; i++) c.send({ type: 'stream.open', streamId: `s${i}`, graph: 'accumulator' });
        expect((await c.next(isError('s64'))).error.message).toMatch(/maxSequencesPerClient/);
        c.send({ type: 'stream.append', streamId: 's0', inputs: x8(1) });
        const ended = await c.next((m) => m.type === 'sequence.ended' && m.streamId === 's0', 30_000);
        expect(ended).toMatchObject({ reason: 'idle', message: expect.stringMatching(/stream "s0" ended/) });
        const from = c.messages.length;
        c.send({ type: 'stream.open', streamId: 'after', graph: 'accumulator' });
        c.send({ type: 'stream.append', streamId: 'after', inputs: x8(2), end: true });
        expect((await c.next((m) => m.type === 'run.completed', 30_000, from)).outputs.y.data[0]).toBe(2);
        // A stream opened and never fed idles out too, after the same timeout.
        const unfed = await c.next((m) => m.type === 'sequence.ended' && m.streamId === 's1', 30_000);
        expect(unfed).toMatchObject({ reason: 'idle', message: expect.stringMatching(/no chunk arrived within 5 s/) });
      }),
    );
  });

  it("10: a second client's sequence id 42 neither resets nor ends the first one's", async () => {
    await probe('10 two clients, sequence id 42', async () => {
      const [a, b] = [await connect(studio.url), await connect(studio.url)];
      try {
        const step = async (c: TestSocket, msg: object) => {
          const from = c.messages.length;
          c.send(msg);
          return (await c.next((m) => m.type === 'run.completed', 30_000, from)).outputs.y.data[0];
        };
        a.send({ type: 'stream.open', streamId: 'a', graph: 'accumulator', sequenceId: 42 });
        b.send({ type: 'stream.open', streamId: 'b', graph: 'accumulator', sequenceId: 42 });
        expect(await step(a, { type: 'stream.append', streamId: 'a', inputs: x8(1) })).toBe(1);
        expect(await step(b, { type: 'stream.append', streamId: 'b', inputs: x8(100), end: true })).toBe(100);
        expect(await step(a, { type: 'stream.append', streamId: 'a', inputs: x8(1), end: true })).toBe(2);
      } finally {
        a.close();
        b.close();
      }
    });
  });

  it('11: a cross-site text/plain POST does not run inference', async () => {
    const r = await probe('11 cross-site text/plain POST', () =>
      post(
        '/v2/models/extractor/infer',
        { inputs: [{ name: 'x', ...x64() }] },
        {
          'content-type': 'text/plain',
          origin: 'http://evil.example',
        },
      ),
    );
    expect(r.status).toBe(403);
  });

  it('12 and 13: saves racing deletes never fail inside; a stray temp file of an interrupted save was swept at start', async () => {
    expect(existsSync(join(repo, 'shared-features', STRAY_TEMP))).toBe(false);
    const doc = (await http(`${studio.url}/api/graphs/shared-features`)).json;
    const statuses = await probe('12 PUT/PUT/DELETE for 2 s', async () => {
      const seen: number[] = [];
      const until = Date.now() + 2000;
      const save = () =>
        http(`${studio.url}/api/graphs/race`, {
          method: 'PUT',
          body: JSON.stringify({ graph: { ...doc, name: 'race' } }),
        });
      while (Date.now() < until) {
        const rs = await Promise.all([save(), save(), http(`${studio.url}/api/graphs/race`, { method: 'DELETE' })]);
        seen.push(...rs.map((r) => r.status));
      }
      return seen;
    });
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
  });

  it('14: a model corrupted at startup is unavailable everywhere, and the graph that needs it says so', async () => {
    const index = await probe('14 repository index', () => post('/v2/repository/index', {}));
    const entry = (n: string) =>
      (index.json as { name: string; state: string; reason?: string }[]).find((e) => e.name === n);
    expect(entry('cls')).toMatchObject({ state: 'UNAVAILABLE', reason: expect.stringMatching(/model 'cls'/) });
    expect(entry('ocr')).toMatchObject({ state: 'UNAVAILABLE', reason: expect.stringMatching(/model 'cls'/) });
    expect((await http(`${studio.url}/v2/models/cls/ready`)).status).toBe(400);
    expect((await http(`${studio.url}/api/health`)).json.problems).toBeGreaterThan(0);
  });

  it('15: an FP32 value that would overflow to Infinity is refused', async () => {
    const r = await probe('15 FP32 3.5e38', () =>
      post('/v2/models/extractor/infer', { inputs: [{ name: 'x', ...x64(3.5e38) }] }),
    );
    expect(r.status).toBe(400);
  });

  it('16: a 100 KB input name is not echoed in full', async () => {
    const r = await probe('16 100 KB input name', () =>
      post('/v2/models/extractor/infer', { inputs: [{ name: 'n'.repeat(100_000), ...x64() }] }),
    );
    expect(r.status).toBe(400);
    expect(r.text.length).toBeLessThan(MAX_MESSAGE);
  });

  it('17: starting the server left no mat-debug log in the temp directory', () => {
    expect(existsSync(join(tmpdir(), `mat-debug-${studio.child.pid}.log`))).toBe(false);
  });
});
