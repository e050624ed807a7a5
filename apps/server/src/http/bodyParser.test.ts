import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../testing/wsTestClient.ts';
import { gzipSync } from 'node:zlib';
import { BodyChunks } from './bodyChunks.ts';
import { BodyParser, INLINE_PARSE_BYTES } from './bodyParser.ts';
import { openedContainers } from './jsonContainers.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';
import { loopTurns } from '../testing/loopTurns.ts';

/** A JSON infer body for `extractor` (x: [rows, 64]) of more than INLINE_PARSE_BYTES. */
function largeInfer(rows: number, last = '0.5'): Buffer {
  const row = new Array(64).fill('0.25').join(',');
  const data = `${new Array(rows - 1).fill(row).join(',')},${new Array(63).fill('0.25').join(',')},${last}`;
  return Buffer.from(`{"inputs":[{"name":"x","datatype":"FP32","shape":[${rows},64],"data":[${data}]}]}`);
}

/** The model the bodies are for, as the infer route describes it to the parser. */
const EXTRACTOR = {
  name: 'extractor',
  signature: {
    inputs: [{ name: 'x', datatype: 'FP32' as const, shape: [-1, 64] }],
    outputs: [{ name: 'feat', datatype: 'FP32' as const, shape: [-1, 256] }],
  },
};

describe('BodyParser', () => {
  const parser = new BodyParser();
  afterAll(() => parser.close());

  it('parses a large body off the main thread: the event loop keeps turning while it is parsed', async () => {
    const body = largeInfer(6000);
    expect(body.byteLength).toBeGreaterThan(INLINE_PARSE_BYTES);
    const turns = loopTurns();
    const before = turns.count();
    const req = await parser.kserve(body, {
      kind: 'infer',
      headerLength: undefined,
      maxTensorElements: 1e7,
      model: EXTRACTOR,
    });
    const during = turns.count() - before;
    turns.stop();
    expect(during).toBeGreaterThan(0);
    expect(req.inputs.x?.shape).toEqual([6000, 64]);
    expect(req.inputs.x?.data).toBeInstanceOf(Float32Array);
    expect(Object.getPrototypeOf(req.inputs)).toBe(null);
  });

  it('joins a body kept as its chunks in the worker, whether or not a chunk owns its buffer', async () => {
    const body = largeInfer(6000);
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < body.byteLength; at += 65536) chunks.push(Uint8Array.from(body.subarray(at, at + 65536)));
    const shared = new Uint8Array(64);
    chunks.push(shared.subarray(0, 0)); // a view into a larger buffer: copied, not transferred
    // A Buffer view too (Buffer's own slice() would be a view, and the whole allocation would move).
    const pool = Buffer.alloc(4096, 0x20);
    chunks.push(pool.subarray(0, 16));
    const req = await parser.kserve(new BodyChunks(chunks, body.byteLength + 16), {
      kind: 'infer',
      headerLength: undefined,
      maxTensorElements: 1e7,
      model: EXTRACTOR,
    });
    expect(req.inputs.x?.shape).toEqual([6000, 64]);
    expect((req.inputs.x?.data as Float32Array)[383999]).toBe(0.5);
    expect(shared.buffer.byteLength).toBe(64);
    expect(pool.buffer.byteLength).toBe(4096);
  });

  it('gives a large body the errors a small one gets', async () => {
    await expect(
      parser.kserve(largeInfer(6000, '"abc"'), {
        kind: 'infer',
        headerLength: undefined,
        maxTensorElements: 1e7,
        model: EXTRACTOR,
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: "input 'x' element 383999 is not a valid FP32 value: not a finite number",
    });
    await expect(
      parser.kserve(largeInfer(6000), {
        kind: 'infer',
        headerLength: undefined,
        maxTensorElements: 1000,
        model: EXTRACTOR,
      }),
    ).rejects.toMatchObject({ status: 400, code: 'limit' });
    await expect(
      parser.kserve(Buffer.concat([largeInfer(6000), Buffer.from('}')]), {
        kind: 'infer',
        headerLength: undefined,
        maxTensorElements: 1e7,
        model: EXTRACTOR,
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/failed to parse the request JSON buffer/) });
  });
});

describe('a small body of many JSON objects and arrays', () => {
  const parser = new BodyParser();
  afterAll(() => parser.close());

  it('is parsed in the worker, not on the main thread: the event loop turns while it is refused', async () => {
    const depth = 200_000;
    const body = Buffer.from(
      `{"inputs":[{"name":"x","datatype":"FP32","shape":[1,64],"data":${'['.repeat(depth)}${']'.repeat(depth)}}]}`,
    );
    expect(body.byteLength).toBeLessThan(INLINE_PARSE_BYTES);
    const turns = loopTurns();
    const job = { kind: 'infer' as const, headerLength: undefined, maxTensorElements: 1e7, model: EXTRACTOR };
    await expect(parser.kserve(body, job)).rejects.toMatchObject({ status: 400 });
    const ws = parser.wsText(Buffer.from(`{"type":"ping","at":${'['.repeat(depth)}${']'.repeat(depth)}}`), {
      maxTensorElements: 1e7,
      maxGraphNodes: 1024,
      maxGraphEdges: 4096,
    });
    expect((await ws).ok).toBe(false);
    turns.stop();
    expect(turns.count()).toBeGreaterThan(0);
  });

  it('counts objects and arrays no further than it must', () => {
    expect(openedContainers(Buffer.from('{"a":[1,{"b":[]}],"s":"[{"}'), 100)).toBe(6);
    expect(openedContainers(Buffer.from('['.repeat(1000)), 10)).toBe(11);
  });
});

describe('a body naming more inputs or outputs than its model has', () => {
  const parser = new BodyParser();
  afterAll(() => parser.close());
  const job = { kind: 'infer' as const, headerLength: undefined, maxTensorElements: 1e7, model: EXTRACTOR };
  const input = (name: string) => ({ name, datatype: 'FP32', shape: [1], data: [1] });

  it('is refused in the worker with the name Triton names, none of its tensors decoded', async () => {
    // The last input's data is not FP32: decoding would have refused that first.
    const inputs = [...Array.from({ length: 100_000 }, (_, i) => input(`i${i}`)), { ...input('x'), data: ['abc'] }];
    const many = Buffer.from(JSON.stringify({ inputs }));
    expect(many.byteLength).toBeGreaterThan(INLINE_PARSE_BYTES);
    await expect(parser.kserve(many, job)).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^\[request id: <id_unknown>\] expected 1 inputs but got 100001 inputs for model 'extractor'\. Got input\(s\) \['i0',/,
      ),
    });
    const twice = Buffer.from(JSON.stringify({ inputs: [input('x'), input('x')] }));
    await expect(parser.kserve(twice, job)).rejects.toMatchObject({
      message: "[request id: <id_unknown>] input 'x' already exists in request",
    });
    const outputs = Array.from({ length: 3 }, () => ({ name: 'feat' }));
    const repeated = Buffer.from(JSON.stringify({ inputs: [input('x')], outputs }));
    await expect(parser.kserve(repeated, job)).rejects.toMatchObject({
      message: "[request id: <id_unknown>] output 'feat' already exists in request",
    });
  });
});

describe('large requests on a running server', () => {
  const s = testServerPerFile();

  it('a large /infer body is parsed in the worker and runs', async () => {
    const r = await call(`${s.url}/v2/models/extractor/infer`, 'POST', largeInfer(6000).toString());
    expect(r.status).toBe(200);
    expect(r.json.outputs[0]).toMatchObject({ name: 'feat', shape: [6000, 256] });
  });

  it('a large plain body is read as chunks and a large gzip body is inflated: both run', async () => {
    for (const encoding of ['identity', 'gzip']) {
      const raw = largeInfer(6000);
      const r = await fetch(`${s.url}/v2/models/extractor/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: encoding === 'gzip' ? gzipSync(raw) : raw,
      });
      expect(r.status, encoding).toBe(200);
      expect(((await r.json()) as { outputs: { shape: number[] }[] }).outputs[0]?.shape).toEqual([6000, 256]);
    }
  });

  it('a large WebSocket message is parsed off the thread and later messages keep their order', async () => {
    const c = await connect(s.url);
    const big = JSON.parse(largeInfer(6000, '"abc"').toString()) as {
      inputs: { name: string; datatype: string; shape: number[]; data: unknown[] }[];
    };
    const input = big.inputs[0]!;
    c.send({
      type: 'run.start',
      requestId: 'big',
      graph: 'extractor',
      inputs: { x: { datatype: input.datatype, shape: input.shape, data: input.data } },
    });
    c.send({ type: 'ping', at: 7 });
    await c.next('pong');
    const first = c.received.find((m) => 'json' in m && (m.json.type === 'error' || m.json.type === 'pong'));
    expect(first && 'json' in first && first.json).toMatchObject({
      type: 'error',
      ref: 'big',
      error: { message: expect.stringMatching(/element 383999 is not a valid FP32/) },
    });
    await c.close();
  });
});
