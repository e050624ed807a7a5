// The hostile categories of the turn survey (turnSurvey.stress.ts): one representative request (or flood) per kind of
// attack the earlier rounds covered (HOSTILE.md), each sent to a server started fresh for it, so that what a first
// request pays (code generated or compiled on first use) is counted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { dirname, join } from 'node:path';
import { connectTestClient, f32Bytes } from '../../apps/server/src/testing/grpcTestClient.ts';
import { copyExamples, http } from '../support/server.ts';
import { connect } from '../support/wsClient.ts';
import { largeInferBody } from './hostileProbe.ts';
import type { MonitoredStudio } from './turnLog.ts';

export interface SurveyCase {
  name: string;
  /** More `studio serve` arguments, given the repository it serves. */
  serveArgs?: (repo: string) => string[];
  /** Made before the bystander starts (large bodies are built here, not while it watches). */
  prepare?: (m: MonitoredStudio, repo: string) => unknown;
  run: (m: MonitoredStudio, prepared: any) => Promise<unknown>;
}

const x8 = (v: number) => ({ x: { datatype: 'FP32', shape: [1, 8], data: new Array<number>(8).fill(v) } });
const grpcInfer = {
  model_name: 'extractor',
  inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64] }],
  raw_input_contents: [f32Bytes(new Array<number>(64).fill(0.5))],
};

/** Writes `text` on a connection of its own; resolves with what came back once the server closes or `until` holds. */
function exchange(url: string, text: string | Buffer, until: (got: string) => boolean): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = tcpConnect(Number(u.port), u.hostname);
    let got = '';
    const done = () => (s.destroy(), resolve(got));
    s.on('data', (d: Buffer) => (got += d.toString('latin1')) && until(got) && done());
    s.on('end', done);
    s.on('error', reject);
    s.write(text);
  });
}

/** gRPC streams: one request each, cancelled after the first message or `cancelAfterMs`. */
function grpcStreams(address: string, count: number, request: (i: number) => object, cancelAfterMs?: number) {
  const client = connectTestClient(address);
  return Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise<string>((resolve) => {
          const s = client.stream();
          s.on('data', (m: { error_message: string }) => (resolve(m.error_message), s.cancel()));
          s.on('error', (e: { code: number }) => resolve(`code ${e.code}`));
          s.on('end', () => resolve('ended'));
          s.write(request(i));
          if (cancelAfterMs !== undefined) setTimeout(() => s.cancel(), cancelAfterMs);
        }),
    ),
  ).finally(() => client.close());
}

/** WebSocket sequence streams on `accumulator`, `perSocket` on each of two sockets, a chunk each. */
async function wsSequences(url: string, perSocket: number): Promise<number> {
  const sockets = [await connect(url), await connect(url)];
  const ends = sockets.map((c, k) => {
    for (let i = 0; i < perSocket; i++) {
      c.send({ type: 'stream.open', streamId: `s${k}-${i}`, graph: 'accumulator' });
      c.send({ type: 'stream.append', streamId: `s${k}-${i}`, inputs: x8(1) });
    }
    let n = 0;
    return c.next((m) => /^(error|run\.failed|run\.completed)$/.test(m.type) && ++n === perSocket, 120_000);
  });
  await Promise.all(ends);
  for (const c of sockets) c.close();
  return 2 * perSocket;
}

const post = (m: MonitoredStudio, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  http(`${m.studio.url}${path}`, { method: 'POST', body, headers });

export const SURVEY_CASES: SurveyCase[] = [
  { name: 'idle (bystander only, 1.5 s)', run: () => new Promise((r) => setTimeout(r, 1500)) },
  {
    name: 'HTTP first /infer',
    run: (m) =>
      post(
        m,
        '/v2/models/extractor/infer',
        JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0.5) }] }),
      ),
  },
  {
    name: 'HTTP 60 MB JSON infer body',
    prepare: () => Buffer.from(largeInferBody(60 * 1024 * 1024)),
    run: (m, body: Buffer) => post(m, '/v2/models/extractor/infer', body),
  },
  {
    name: 'HTTP malformed JSON, 8 MB of [',
    prepare: () => Buffer.alloc(8 * 1024 * 1024, '['),
    run: (m, body: Buffer) => post(m, '/v2/models/extractor/infer', body),
  },
  {
    name: 'HTTP 500 headers; gRPC 500 metadata',
    run: async (m) => {
      const host = new URL(m.studio.url).host;
      const many = Array.from({ length: 500 }, (_, i) => `x-h${i}: v\r\n`).join('');
      await exchange(m.studio.url, `GET /v2/health/ready HTTP/1.1\r\nHost: ${host}\r\n${many}\r\n`, (g) =>
        g.includes('\r\n\r\n'),
      );
      const c = connectTestClient(m.grpcAddress);
      const entries = Array.from({ length: 500 }, (_, i): [string, string] => [`x-m${i}`, 'v']);
      await c.callWithMetadata('ServerLive', {}, entries).catch(() => undefined);
      c.close();
    },
  },
  {
    name: 'malformed config.pbtxt (1 MiB), load',
    prepare: (_m, repo: string) => {
      mkdirSync(join(repo, 'bad_pbtxt'));
      writeFileSync(
        join(repo, 'bad_pbtxt', 'config.pbtxt'),
        `name: "bad_pbtxt"\ninput [{ dims: [${'1,'.repeat(500_000)}`,
      );
    },
    run: (m) => post(m, '/v2/repository/models/bad_pbtxt/load', ''),
  },
  {
    name: 'mixed sequence flood (WS 130, gRPC 16, HTTP 64)',
    run: (m) =>
      Promise.all([
        wsSequences(m.studio.url, 65),
        grpcStreams(m.grpcAddress, 16, (i) => ({
          model_name: 'accumulator',
          parameters: { sequence_id: { int64_param: 1000 + i }, sequence_start: { bool_param: true } },
          inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8] }],
          raw_input_contents: [f32Bytes(new Array<number>(8).fill(1))],
        })),
        ...Array.from({ length: 64 }, (_, i) =>
          post(
            m,
            '/v2/models/accumulator/infer',
            JSON.stringify({
              parameters: { sequence_id: 2000 + i, sequence_start: true },
              inputs: [{ name: 'x', ...x8(1).x }],
            }),
            { connection: 'close' },
          ),
        ),
      ]),
  },
  {
    name: 'gRPC first ModelInfer',
    run: (m) => {
      const c = connectTestClient(m.grpcAddress);
      return c.call('ModelInfer', grpcInfer).finally(() => c.close());
    },
  },
  { name: 'gRPC first 16 ModelStreamInfer', run: (m) => grpcStreams(m.grpcAddress, 16, () => grpcInfer) },
  {
    name: 'gRPC first ModelConfig + ModelMetadata + index',
    run: async (m) => {
      const c = connectTestClient(m.grpcAddress);
      await c.call('ModelConfig', { name: 'ocr' });
      await c.call('ModelMetadata', { name: 'ocr' });
      await c.call('RepositoryIndex', {});
      c.close();
    },
  },
  {
    name: 'gRPC malformed messages (1 MiB garbage, truncated)',
    run: async (m) => {
      const c = connectTestClient(m.grpcAddress);
      const garbage = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 2654435761) >>> 24;
      await c.callEncoded('ModelInfer', garbage);
      await c.callEncoded('ModelInfer', Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x41]));
      c.close();
    },
  },
  { name: 'gRPC 1,500 streams, half cancelled', run: (m) => grpcStreams(m.grpcAddress, 1500, () => grpcInfer, 50) },
  {
    name: 'WebSocket 34 MB run.start',
    prepare: () =>
      `{"type":"run.start","requestId":"big","graph":"extractor","inputs":${largeInferBody(34 * 1024 * 1024)
        .replace('{"inputs":[{"name":"x",', '{"x":{')
        .replace(']}]}', ']}}')}}`,
    run: async (m, message: string) => {
      const c = await connect(m.studio.url);
      c.sendRaw(message);
      await c.next((x) => x.type === 'error' || x.type === 'run.failed', 120_000);
      c.close();
    },
  },
  {
    name: 'WebSocket 200 binary frames of 1 MiB',
    run: async (m) => {
      const c = await connect(m.studio.url);
      const frame = Buffer.alloc(1024 * 1024, 1);
      for (let i = 0; i < 200 && c.isOpen(); i++) c.sendRaw(frame);
      await Promise.race([c.closed, c.roundTrip(60_000)]).catch(() => undefined);
      c.close();
    },
  },
  {
    name: 'import a whole repository',
    // Its copies' parent (the temp directory) is an import root, so the import is served, not refused.
    serveArgs: (repo) => ['--import-root', dirname(repo)],
    prepare: () => copyExamples({ linkModels: true }),
    run: (m, dir: string) => post(m, '/api/import', JSON.stringify({ dir }), { 'content-type': 'application/json' }),
  },
  {
    name: 'export ocr (zip)',
    run: (m) => post(m, '/api/export', JSON.stringify({ graph: 'ocr' }), { 'content-type': 'application/json' }),
  },
  {
    name: '3,000 pipelined GET /config',
    run: (m) => {
      const host = new URL(m.studio.url).host;
      const flood = `GET /v2/models/ocr/config HTTP/1.1\r\nHost: ${host}\r\n\r\n`.repeat(3000);
      return exchange(m.studio.url, flood, (got) => got.split('HTTP/1.1 200 ').length - 1 === 3000);
    },
  },
];
