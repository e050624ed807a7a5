// The bundled examples streamed over gRPC ModelStreamInfer and HTTP generate_stream: `ocr` (a decoupled gate
// after text detection, the real PaddleOCR models) streams a response with the text of a text image and none for a
// blank one; `python_chunk_stream` (a decoupled Python model) streams one response per chunk as it sends them.
import { readFileSync } from 'node:fs';
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tensorToBytes } from '../http/kserveTensors.ts';
import { decodeImage } from '../io/image.ts';
import { DEFAULT_REPO, startServer, type RunningServer } from '../main.ts';
import { makeFixtures } from '../testing/smokeSupport.ts';
import { startGrpcServer, type GrpcServer } from './server.ts';
import { connectTestClient, streamAll, type TestClient, f32Values } from '../testing/grpcTestClient.ts';

let s: RunningServer;
let g: GrpcServer;
let c: TestClient;
beforeAll(async () => {
  // Python models run under STUDIO_PYTHON; Debian's python3 has numpy (the one on PATH may not).
  process.env.STUDIO_PYTHON ||= '/usr/bin/python3';
  s = await startServer({ repo: DEFAULT_REPO, port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
  g = await startGrpcServer(s.studio, '127.0.0.1', 0);
  c = connectTestClient(g.address);
}, 120_000);
afterAll(async () => {
  c?.close();
  await g?.close();
  await s?.close();
});

/** A stream request for `ocr` with an image file as its UINT8 HWC input. */
function ocrRequest(file: string, id: string, parameters: Record<string, unknown> = {}) {
  const image = decodeImage(readFileSync(file));
  return {
    model_name: 'ocr',
    id,
    parameters,
    inputs: [{ name: 'image', datatype: 'UINT8', shape: [...image.shape] }],
    raw_input_contents: [Buffer.from(tensorToBytes(image))],
  };
}

/** BYTES elements of a raw output: each a 4-byte little-endian length, then UTF-8. */
function strings(raw: Uint8Array): string[] {
  const b = Buffer.from(raw);
  const out: string[] = [];
  for (let off = 0; off < b.length;) {
    const n = b.readUInt32LE(off);
    out.push(b.subarray(off + 4, off + 4 + n).toString('utf8'));
    off += 4 + n;
  }
  return out;
}

describe('ocr over gRPC', () => {
  it('ModelConfig answers for every model of the examples, and says ocr is decoupled (its gate)', async () => {
    const { models } = await c.call('RepositoryIndex', {});
    for (const { name } of models as { name: string }[])
      expect((await c.call('ModelConfig', { name })).config.name, name).toBe(name);
    expect((await c.call('ModelConfig', { name: 'ocr' })).config.model_transaction_policy).toEqual({ decoupled: true });
  });

  it('unary ModelInfer is refused as Triton refuses decoupled models', async () => {
    const err = await c.call('ModelInfer', ocrRequest(makeFixtures().blank, 'u')).then(
      () => undefined,
      (e: { code: number; details: string }) => e,
    );
    expect(err?.code).toBe(status.UNIMPLEMENTED);
    expect(err?.details).toMatch(/^ModelInfer RPC doesn't support models with decoupled transaction policy/);
  });

  it('a text image streams one response carrying the text; the empty final response comes when asked for', async () => {
    const msgs = await streamAll(c, [ocrRequest(makeFixtures().hello, 'hello-1')]);
    expect(msgs.map((m) => m.error_message)).toEqual(['']);
    const r = msgs[0]!.infer_response;
    expect(r).toMatchObject({ model_name: 'ocr', id: 'hello-1' });
    const names = r.outputs.map((o: { name: string }) => o.name);
    expect(names).toEqual(expect.arrayContaining(['boxes', 'texts', 'scores', 'angles']));
    expect(strings(r.raw_output_contents[names.indexOf('texts')]).join(' ')).toContain('HELLO 2026');
    // As a decoupled Triton model: the response, then a flags-only final that is sent only on request.
    expect(r.parameters.triton_final_response.bool_param).toBe(false);
    const asked = await streamAll(c, [
      ocrRequest(makeFixtures().hello, 'hello-2', { triton_enable_empty_final_response: { bool_param: true } }),
    ]);
    expect(
      asked.map((m) => [
        m.infer_response.id,
        m.infer_response.outputs.length,
        m.infer_response.parameters.triton_final_response.bool_param,
      ]),
    ).toEqual([
      ['hello-2', 4, false],
      ['hello-2', 0, true],
    ]);
  }, 60_000);

  it('a blank image streams no response; with triton_enable_empty_final_response, one empty final response', async () => {
    expect(await streamAll(c, [ocrRequest(makeFixtures().blank, 'blank')])).toEqual([]);
    const asked = await streamAll(c, [
      ocrRequest(makeFixtures().blank, 'blank-2', { triton_enable_empty_final_response: { bool_param: true } }),
    ]);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.error_message).toBe('');
    expect(asked[0]!.infer_response).toMatchObject({
      id: 'blank-2',
      model_name: 'ocr',
      outputs: [],
      raw_output_contents: [],
    });
    expect(asked[0]!.infer_response.parameters.triton_final_response.bool_param).toBe(true);
  }, 60_000);
});

describe('a client that goes away', () => {
  it("cancels the stream's run in flight: the engine counts it failed, not served, and frees its run slot", async () => {
    // A copy: metrics() hands out the live counters.
    const before = { requestSuccess: 0, requestFailure: 0, ...s.studio.engine.metrics().graphs.ocr };
    const stream = c.stream();
    const ended = new Promise<void>((resolve) => {
      stream.on('error', () => resolve());
      stream.on('end', () => resolve());
    });
    stream.on('data', () => undefined);
    stream.write(ocrRequest(makeFixtures().longLine, 'gone'));
    // Cancel as soon as the run is in flight (not after a fixed wait: on a busy machine that could be before the
    // request arrived or after the run ended).
    const deadline = Date.now() + 30_000;
    while (s.studio.runsInFlight === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    expect(s.studio.runsInFlight).toBe(1);
    stream.cancel();
    await ended;
    await expect.poll(() => s.studio.runsInFlight, { timeout: 30_000 }).toBe(0);
    const after = s.studio.engine.metrics().graphs.ocr!;
    expect(after.requestFailure).toBe(before.requestFailure + 1);
    expect(after.requestSuccess).toBe(before.requestSuccess);
  }, 60_000);
});

/** The `data:` events of an SSE body, parsed. */
async function sseEvents(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => JSON.parse(e.slice(6)) as Record<string, unknown>);
}

describe('ocr over HTTP generate_stream', () => {
  const post = (file: string) => {
    const image = decodeImage(readFileSync(file));
    const body = {
      id: 'g',
      inputs: [
        { name: 'image', datatype: 'UINT8', shape: [...image.shape], data: Array.from(image.data as Uint8Array) },
      ],
    };
    return fetch(`${s.url}/v2/models/ocr/generate_stream`, { method: 'POST', body: JSON.stringify(body) });
  };

  it('a text image sends one event with the text; a blank image sends none', async () => {
    const hello = await sseEvents(await post(makeFixtures().hello));
    expect(hello).toHaveLength(1);
    expect(hello[0]).toMatchObject({ model_name: 'ocr', id: 'g' });
    expect(String(hello[0]!.texts)).toContain('HELLO 2026');
    const blank = await post(makeFixtures().blank);
    expect(blank.status).toBe(200);
    expect(await sseEvents(blank)).toEqual([]);
  }, 60_000);
});

describe('a decoupled Python model', () => {
  const signal = Array.from({ length: 10_000 }, (_, i) => Math.sin(i / 50));
  const request = (parameters: Record<string, unknown> = {}) => ({
    model_name: 'python_chunk_stream',
    id: 'chunks',
    parameters,
    inputs: [{ name: 'signal', datatype: 'FP32', shape: [signal.length] }],
    raw_input_contents: [Buffer.from(new Float32Array(signal).buffer)],
  });

  it('streams each chunk as its own response over gRPC, then the empty final response when asked', async () => {
    const msgs = await streamAll(c, [request({ triton_enable_empty_final_response: { bool_param: true } })]);
    expect(msgs.map((m) => m.error_message)).toEqual(['', '', '', '']);
    const chunks = msgs.slice(0, 3).map((m) => m.infer_response);
    expect(chunks.map((r) => r.parameters.triton_final_response.bool_param)).toEqual([false, false, false]);
    const index = (r: { outputs: { name: string }[]; raw_output_contents: Uint8Array[] }) =>
      new Int32Array(new Uint8Array(r.raw_output_contents[r.outputs.findIndex((o) => o.name === 'index')]!).buffer)[0];
    expect(chunks.map(index)).toEqual([0, 1, 2]);
    const joined = chunks.flatMap((r) =>
      f32Values(r.raw_output_contents[r.outputs.findIndex((o: { name: string }) => o.name === 'chunk')]),
    );
    expect(joined).toEqual(Array.from(new Float32Array(signal)));
    expect(msgs[3]!.infer_response).toMatchObject({ id: 'chunks', outputs: [] });
    expect(msgs[3]!.infer_response.parameters.triton_final_response.bool_param).toBe(true);
  }, 60_000);

  it('streams each chunk as its own event over HTTP generate_stream', async () => {
    const res = await fetch(`${s.url}/v2/models/python_chunk_stream/generate_stream`, {
      method: 'POST',
      body: JSON.stringify({ signal }),
    });
    const events = await sseEvents(res);
    expect(events.map((e) => e.index)).toEqual([0, 1, 2]);
    expect(events.map((e) => (e.chunk as number[]).length)).toEqual([4000, 4000, 2000]);
  }, 60_000);
});
