// The fifteenth hostile-input round, as a regression case against a real `studio serve` with a bystander asking
// /v2/health/ready from a process of its own: one client's mixed flood of sequence starts on `accumulator` (130
// WebSocket streams over two sockets with a chunk each, 16 gRPC ModelStreamInfer sequence starts and 64 HTTP
// sequence starts, all at once), more than its sequence slots and backlog hold, so many are refused. The HTTP
// refusals (503, the full sequence backlog) were handed through Express's router to the error handler, resumed with
// setImmediate, so they landed together in one check phase; they are now answered where raised
// (answerErrorsHere.ts), with the same status, body and headers, which this test pins.
import { describe, expect, it } from 'vitest';
import { connectTestClient, f32Bytes } from '../../apps/server/src/testing/grpcTestClient.ts';
import { connect } from '../../apps/server/src/testing/wsTestClient.ts';
import { copyExamples, spawnStudio } from '../support/server.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(() => spawnStudio(copyExamples({ linkModels: true })));

const WS_STREAMS_PER_SOCKET = 65;
const GRPC_STREAMS = 16;
const HTTP_STARTS = 64;
const FULL_BACKLOG =
  "model 'accumulator' has every sequence slot held and 16 new sequences waiting for one (at most 16, a quarter of maxConcurrentRuns); try again when a sequence ends";

const x8 = (v: number) => ({ x: { datatype: 'FP32', shape: [1, 8], data: new Array<number>(8).fill(v) } });

interface HttpAnswer {
  status: number;
  contentType: string | null;
  nosniff: string | null;
  body: string;
}

/** Two WebSocket clients' sequence streams: resolves with each socket's terminal messages' types once all are in. */
async function wsStarts(url: string): Promise<string[]> {
  const sockets = [await connect(url), await connect(url)];
  const ends = await Promise.all(
    sockets.map(
      (c, k) =>
        new Promise<string[]>((resolve) => {
          const seen: string[] = [];
          c.ws.on('message', (d: Buffer, binary: boolean) => {
            if (binary) return;
            const type = (JSON.parse(d.toString()) as { type: string }).type;
            if (!/^(error|run\.failed|run\.completed)$/.test(type)) return;
            seen.push(type);
            if (seen.length === WS_STREAMS_PER_SOCKET) resolve(seen);
          });
          for (let i = 0; i < WS_STREAMS_PER_SOCKET; i++) {
            c.send({ type: 'stream.open', streamId: `s${k}-${i}`, graph: 'accumulator' });
            c.send({ type: 'stream.append', streamId: `s${k}-${i}`, inputs: x8(1) });
          }
        }),
    ),
  );
  for (const c of sockets) c.ws.close();
  return ends.flat();
}

/** gRPC sequence starts, one stream each: resolves with each first message's error_message ('' when answered). */
function grpcStarts(address: string, base: number): Promise<string[]> {
  const client = connectTestClient(address);
  const starts = Array.from(
    { length: GRPC_STREAMS },
    (_, i) =>
      new Promise<string>((resolve) => {
        const s = client.stream();
        s.on('data', (m: { error_message: string }) => {
          resolve(m.error_message);
          s.cancel();
        });
        s.on('error', (e: { code: number }) => resolve(`code ${e.code}`));
        s.write({
          model_name: 'accumulator',
          parameters: { sequence_id: { int64_param: base + i }, sequence_start: { bool_param: true } },
          inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8] }],
          raw_input_contents: [f32Bytes(new Array<number>(8).fill(1))],
        });
      }),
  );
  return Promise.all(starts).finally(() => client.close());
}

/** HTTP sequence starts, each on a connection of its own. */
function httpStarts(url: string, base: number): Promise<HttpAnswer[]> {
  return Promise.all(
    Array.from({ length: HTTP_STARTS }, async (_, i) => {
      const res = await fetch(`${url}/v2/models/accumulator/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({
          parameters: { sequence_id: base + i, sequence_start: true },
          inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8], data: new Array<number>(8).fill(1) }],
        }),
      });
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        nosniff: res.headers.get('x-content-type-options'),
        body: await res.text(),
      };
    }),
  );
}

describe('hostile input, fifteenth round', () => {
  it("one client's mixed flood of sequence starts (WebSocket, gRPC, HTTP) holds no other client", async () => {
    await expect.poll(() => /grpc listening on (\S+)/.exec(studio.output())?.[1], { timeout: 30_000 }).toBeTruthy();
    const grpcAddress = /grpc listening on (\S+)/.exec(studio.output())![1]!;
    // Warm: the model's instance started (a sequence of one request).
    const warm = await fetch(`${studio.url}/v2/models/accumulator/infer`, {
      method: 'POST',
      body: JSON.stringify({
        parameters: { sequence_id: 1, sequence_start: true, sequence_end: true },
        inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 8], data: new Array<number>(8).fill(1) }],
      }),
    });
    expect(warm.status).toBe(200);
    const [ws, grpc, http] = await probe(
      "one client's mixed flood: 130 WebSocket, 16 gRPC and 64 HTTP sequence starts",
      // The probe's 1 s stall detector (HOSTILE.md, fifteenth round: what old and new read at this machine's load).
      () => Promise.all([wsStarts(studio.url), grpcStarts(grpcAddress, 1000), httpStarts(studio.url, 2000)]),
    );
    // 210 new sequences for a model whose slots and backlog hold fewer: some are refused, which ones depends on arrival.
    expect(ws).toHaveLength(2 * WS_STREAMS_PER_SOCKET);
    for (const m of grpc) expect(m).toMatch(new RegExp(`^(|${FULL_BACKLOG.replace(/[()]/g, '\\$&')})$`));
    for (const a of http) {
      expect(a.nosniff).toBe('nosniff');
      expect(a.contentType).toBe('application/json; charset=utf-8');
      if (a.status === 200) expect(JSON.parse(a.body)).toMatchObject({ model_name: 'accumulator' });
      else expect(a).toMatchObject({ status: 503, body: JSON.stringify({ error: FULL_BACKLOG }) });
    }
    const refused = [
      ...ws.filter((t) => t !== 'run.completed'),
      ...grpc.filter(Boolean),
      ...http.filter((a) => a.status !== 200),
    ];
    expect(refused.length).toBeGreaterThan(0);
  });
});
