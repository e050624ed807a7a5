// Hostile input against a real server (engine included) on loopback: WebSocket frames and KServe infer bodies.
// Invariant: every bad frame gets an `error` reply and the socket keeps answering; every bad body gets a 4xx JSON
// error (never a 5xx); a bystander client's runs keep completing with the right numbers throughout.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_TYPES } from '../../packages/core/src/index.ts';
import type { RunningServer } from '../../apps/server/src/main.ts';
import { FUZZ_RUNS } from '../support/fuzz.ts';
import { PROTOTYPE_NAMES } from '../support/hostileNames.ts';
import { mutateJson } from '../support/mutate.ts';
import { http, startStudio } from '../support/server.ts';
import { connect, type Msg, type TestSocket } from '../support/wsClient.ts';

const WS_LIMIT = 256 * 1024;
let server: RunningServer;
let reference: number[];

const xInput = (rows: number, v = 1) => ({
  datatype: 'FP32',
  shape: [rows, 64],
  data: Array.from({ length: rows * 64 }, (_, i) => v * ((i % 7) - 3)),
});
const terminal = (m: Msg) => ['run.completed', 'run.failed', 'run.exited_early'].includes(m.type);

/** Runs `pipe` on a fixed input and returns its logits: the bystander's proof that the server still serves correctly. */
async function bystanderRun(c: TestSocket, id: string): Promise<number[]> {
  const from = c.messages.length;
  c.send({ type: 'run.start', requestId: id, graph: 'pipe', inputs: { x: xInput(1) } });
  const started = await c.next((m) => m.type === 'run.started' && m.requestId === id, 30_000, from);
  const end = await c.next((m) => terminal(m) && m.runId === started.runId, 30_000, from);
  expect(end.type, JSON.stringify(end)).toBe('run.completed');
  return end.outputs.logits.data as number[];
}

beforeAll(async () => {
  server = await startStudio({
    limits: { maxWsMessageBytes: WS_LIMIT, maxBodyBytes: 1024 * 1024, maxTensorElements: 100_000 },
  });
  const c = await connect(server.url);
  reference = await bystanderRun(c, 'ref');
  c.close();
}, 120_000);
afterAll(async () => {
  await server?.close();
});

const VALID: unknown[] = [
  { type: 'ping', at: 1 },
  { type: 'run.start', requestId: 'q', graph: 'pipe', inputs: { x: xInput(2) } },
  { type: 'run.start', requestId: 'q', graph: 'pipe', inputs: { x: { datatype: 'FP32', shape: [1, 64], binary: 0 } } },
  { type: 'run.cancel', runId: 'nope' },
  { type: 'stream.open', streamId: 's', graph: 'acc', sequenceId: 7 },
  {
    type: 'stream.append',
    streamId: 's',
    inputs: { x: { datatype: 'FP32', shape: [1, 8], data: [1, 2, 3, 4, 5, 6, 7, 8] } },
  },
  { type: 'stream.end', streamId: 's' },
  // Names every plain object answers to, as graph, input and stream names.
  ...PROTOTYPE_NAMES.flatMap((p) => [
    { type: 'run.start', requestId: p, graph: p, inputs: { x: xInput(1) } },
    { type: 'run.start', requestId: 'q', graph: 'pipe', inputs: { [p]: xInput(1) } },
    { type: 'stream.open', streamId: p, graph: p },
    { type: 'stream.append', streamId: p, inputs: { [p]: { datatype: 'FP32', shape: [1, 8], data: [1] } } },
  ]),
];

const frame = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom(...VALID), fc.infiniteStream(fc.nat()), fc.integer({ min: 1, max: 4 }))
      .map(([v, r, n]) => JSON.stringify(mutateJson(v, r, n))),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 64 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{',
      '[]',
      'null',
      '{"type":"run.start"}',
      '{"type":"__proto__"}',
      '{"__proto__":{"type":"ping"}}',
      '\u0000',
      '"' + 'x'.repeat(1000),
    ),
  },
);

describe('fuzz: WebSocket frames', () => {
  it(`${FUZZ_RUNS.wsFrames} random and mutated frames get replies, the socket keeps answering, a bystander's runs stay correct`, async () => {
    const bystander = await connect(server.url);
    const frames = fc.sample(frame, { numRuns: FUZZ_RUNS.wsFrames, seed: 7 });
    let sock = await connect(server.url);
    let badJson = 0;
    let reconnects = 0;
    for (let i = 0; i < frames.length; i++) {
      const f = frames[i]!;
      try {
        JSON.parse(f);
      } catch {
        badJson++;
      }
      sock.sendRaw(f);
      if (i % 100 === 99) {
        // The hostile socket must still answer; the server may have closed it only for a documented reason.
        if (!sock.isOpen()) {
          reconnects++;
          sock = await connect(server.url);
        }
        await sock.roundTrip();
        expect(await bystanderRun(bystander, `b${i}`)).toEqual(reference);
      }
    }
    await sock.roundTrip();
    const internal = sock.messages.filter((m) => m.type === 'error' && /internal/i.test(m.error?.code ?? ''));
    expect(internal, JSON.stringify(internal.slice(0, 3))).toEqual([]);
    expect(reconnects, 'hostile frames closed the socket').toBe(0);
    // Every non-JSON frame was answered with an error naming the problem.
    expect(sock.messages.filter((m) => m.type === 'error' && m.error.code === 'bad-json').length).toBe(badJson);
    expect(await bystanderRun(bystander, 'last')).toEqual(reference);
    sock.close();
    bystander.close();
  });

  it('binary frames nobody announced, oversize frames and half-announced binaries get errors; the socket stays usable', async () => {
    const c = await connect(server.url);
    c.sendRaw(new Uint8Array([1, 2, 3]));
    await c.next((m) => m.type === 'error' && m.error.code === 'unexpected-binary');
    c.sendRaw(new Uint8Array(WS_LIMIT + 10));
    await c.next((m) => m.type === 'error' && /maxWsMessageBytes/.test(m.error.message));
    c.sendRaw(JSON.stringify({ type: 'ping', at: 1, pad: 'x'.repeat(WS_LIMIT) }));
    await c.next((m) => m.type === 'error' && /maxWsMessageBytes/.test(m.error.message), 10_000, 2);
    // announce one binary input, then send JSON instead of the frame
    c.send({
      type: 'run.start',
      requestId: 'half',
      graph: 'pipe',
      inputs: { x: { datatype: 'FP32', shape: [1, 64], binary: 0 } },
    });
    c.send({ type: 'ping', at: 5 });
    await c.next((m) => m.type === 'error' && m.error.code === 'missing-binary');
    // a binary frame of the wrong size for its tensor
    const from = c.messages.length;
    c.send({
      type: 'run.start',
      requestId: 'short',
      graph: 'pipe',
      inputs: { x: { datatype: 'FP32', shape: [1, 64], binary: 0 } },
    });
    c.sendRaw(new Uint8Array(10));
    await c.next(
      (m) => (m.type === 'error' || m.type === 'run.failed') && (m.ref === 'short' || m.type === 'run.failed'),
      10_000,
      from,
    );
    // a correct binary run still works on the same socket
    const bytes = new Float32Array(xInput(1).data);
    const from2 = c.messages.length;
    c.send({
      type: 'run.start',
      requestId: 'bin',
      graph: 'pipe',
      inputs: { x: { datatype: 'FP32', shape: [1, 64], binary: 0 } },
    });
    c.sendRaw(new Uint8Array(bytes.buffer));
    const started = await c.next((m) => m.type === 'run.started' && m.requestId === 'bin', 30_000, from2);
    const end = await c.next((m) => terminal(m) && m.runId === started.runId, 30_000, from2);
    expect(end.type).toBe('run.completed');
    const got = end.outputs.logits.data ?? [];
    expect(got).toEqual(reference);
    await c.roundTrip();
    c.close();
  });

  it('a frame far above the cap closes only that socket; other clients carry on', async () => {
    const other = await connect(server.url);
    const c = await connect(server.url);
    c.sendRaw(new Uint8Array(WS_LIMIT + 4 * 1024 * 1024));
    const closedOrError = await Promise.race([
      c.closed.then(() => 'closed'),
      c.next((m) => m.type === 'error', 10_000).then(() => 'error'),
    ]);
    expect(['closed', 'error']).toContain(closedOrError);
    expect(await bystanderRun(other, 'after-big')).toEqual(reference);
    other.close();
    c.close();
  });
});

const shape = fc.array(fc.oneof(fc.nat({ max: 70 }), fc.constantFrom(-1, 0, 64, 2 ** 31, 2 ** 53, 1e300, 1.5)), {
  maxLength: 4,
});
const element = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.string({ maxLength: 3 }),
  fc.constant(null),
  fc.constant(1e308),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const inferInput = fc.record(
  {
    name: fc.constantFrom('x', 'feat', 'y', '', ...PROTOTYPE_NAMES),
    datatype: fc.constantFrom(...DATA_TYPES, 'FP128', 'fp32', 7),
    shape,
    data: fc.oneof(
      fc.array(element, { maxLength: 70 }),
      fc.constant(xInput(1).data),
      fc.constant([xInput(1).data]),
      fc.constant('not an array'),
      element,
    ),
    parameters: fc.oneof(
      fc.constant(undefined),
      fc.record({ binary_data_size: fc.oneof(fc.nat({ max: 300 }), fc.constant(-1)) }),
    ),
  },
  { requiredKeys: ['name'] },
);
const inferBody = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .record({
        inputs: fc.array(inferInput, { maxLength: 3 }),
        outputs: fc.option(
          fc.array(fc.record({ name: fc.constantFrom('logits', 'nope', 'y', ...PROTOTYPE_NAMES) }), { maxLength: 2 }),
          {
            nil: undefined,
          },
        ),
        parameters: fc.option(
          fc.record(
            {
              sequence_id: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.string({ maxLength: 3 }), fc.constant(1e300)),
              sequence_start: fc.boolean(),
              sequence_end: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
          { nil: undefined },
        ),
      })
      .map((b) => JSON.stringify(b)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.infiniteStream(fc.nat()), fc.integer({ min: 1, max: 4 }))
      .map(([r, n]) =>
        JSON.stringify(mutateJson({ inputs: [{ name: 'x', ...xInput(2) }], outputs: [{ name: 'logits' }] }, r, n)),
      ),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

describe('fuzz: KServe v2 infer bodies', () => {
  it(`${FUZZ_RUNS.kserve} wrong dtypes, shapes, counts, nested data and huge numbers get 4xx JSON errors or a correct result, never a 5xx`, async () => {
    const bodies = fc.sample(
      fc.tuple(fc.constantFrom('pipe', 'head', 'acc', 'extractor', 'nope', 'ghost', ...PROTOTYPE_NAMES), inferBody),
      { numRuns: FUZZ_RUNS.kserve, seed: 11 },
    );
    const statuses = new Map<number, number>();
    const fives: string[] = [];
    for (const [model, body] of bodies) {
      const r = await http(`${server.url}/v2/models/${model}/infer`, { method: 'POST', body });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      if (r.status >= 500 && !(r.status === 503 && model === 'ghost'))
        fives.push(`${model} ${r.status} ${body.slice(0, 200)} → ${r.text.slice(0, 200)}`);
      if (r.status >= 400) expect(typeof r.json?.error, r.text.slice(0, 200)).toBe('string');
      else expect(r.json?.outputs, r.text.slice(0, 200)).toBeInstanceOf(Array);
    }
    expect(fives, fives.slice(0, 5).join('\n')).toEqual([]);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
    // and the server still answers correctly afterwards
    const ok = await http(`${server.url}/v2/models/pipe/infer`, {
      method: 'POST',
      body: JSON.stringify({ inputs: [{ name: 'x', ...xInput(1) }] }),
    });
    expect(ok.status).toBe(200);
    expect(ok.json.outputs[0].data).toEqual(reference);
  });

  it('regression: deeply nested "data" (20,000 levels) gets a 4xx, not a stack overflow', async () => {
    const deep = '['.repeat(20_000) + '1' + ']'.repeat(20_000);
    const nested = await http(`${server.url}/v2/models/pipe/infer`, {
      method: 'POST',
      body: `{"inputs":[{"name":"x","datatype":"FP32","shape":[1,64],"data":${deep}}]}`,
    });
    expect(nested.status, nested.text.slice(0, 200)).toBeGreaterThanOrEqual(400);
    expect(nested.status, nested.text.slice(0, 200)).toBeLessThan(500);
  });

  it('deeply nested data over the WebSocket gets an error reply', async () => {
    const c = await connect(server.url);
    const deep = '['.repeat(20_000) + '1' + ']'.repeat(20_000);
    c.sendRaw(
      `{"type":"run.start","requestId":"deep","graph":"pipe","inputs":{"x":{"datatype":"FP32","shape":[1,64],"data":${deep}}}}`,
    );
    const reply = await c.next((m) => m.type === 'error' || m.type === 'run.failed');
    expect(reply.error.code).not.toMatch(/internal/);
    await c.roundTrip();
    c.close();
  });

  it('a body over maxBodyBytes and a lying binary header get 4xx', async () => {
    const big = await http(`${server.url}/v2/models/pipe/infer`, {
      method: 'POST',
      body: JSON.stringify({
        inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: 'x'.repeat(2 * 1024 * 1024) }],
      }),
    });
    expect(big.status).toBe(413);
    const lying = await http(`${server.url}/v2/models/pipe/infer`, {
      method: 'POST',
      body: '{"inputs":[]}',
      headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': '999' },
    });
    expect(lying.status).toBe(400);
  });
});
