import { connect as netConnect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../testing/testServer.ts';
import { tempDir } from '../testing/tempDir.ts';
import { connect } from '../testing/wsTestClient.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer({
    limits: { maxWsMessageBytes: 100_000, maxOpenSequences: 2, maxTensorElements: 50_000 },
  });
});
afterAll(async () => s?.close());

const x64 = Array.from({ length: 64 }, (_, i) => (i % 5) / 5);

describe('run over WebSocket', () => {
  it('says hello, runs a saved graph with JSON inputs and streams its events', async () => {
    const c = await connect(s.url);
    const hello = await c.next('hello');
    expect(hello).toMatchObject({ protocol: 1 });
    expect(hello.executionProviders).toContain('cpu');
    c.startJson('r1', 'pipe', 'x', [1, 64], x64);
    const started = await c.next('run.started');
    expect(started.requestId).toBe('r1');
    const finished = await c.next('node.finished', (m) => m.nodeId === 'head');
    expect(finished.runId).toBe(started.runId);
    const done = await c.next('run.completed');
    expect(done.runId).toBe(started.runId);
    expect(done.outputs.logits).toMatchObject({ datatype: 'FP32', shape: [1, 16] });
    expect(done.outputs.logits?.data).toHaveLength(16);
    await c.close();
  });

  it('takes inputs as binary frames and returns large outputs as binary frames', async () => {
    const c = await connect(s.url);
    const rows = 20;
    const input = new Float32Array(rows * 64).map((_, i) => (i % 5) / 5);
    c.startBinary('bin', 'extractor', 'x', [rows, 64], input);
    const done = await c.next('run.completed');
    expect(done.outputs.feat).toEqual({ datatype: 'FP32', shape: [rows, 256], binary: 0 });
    const frame = await c.frameAfter(done);
    expect(frame.byteLength).toBe(rows * 256 * 4);
    c.startJson('json', 'extractor', 'x', [1, 64], Array.from(input.subarray(0, 64)));
    const small = await c.next('run.completed');
    const first = new Float32Array(frame.buffer.slice(frame.byteOffset, frame.byteOffset + 1024));
    expect(small.outputs.feat?.data).toEqual(Array.from(first));
    await c.close();
  });

  it('answers bad messages with an error naming the problem and keeps the connection', async () => {
    const c = await connect(s.url);
    c.send('{ nope');
    expect((await c.next('error')).error.code).toBe('bad-json');
    c.send({ type: 'explode' });
    expect((await c.next('error')).error.message).toMatch(/unknown message type "explode"/);
    c.send({
      type: 'run.start',
      requestId: 'r2',
      graph: 'pipe',
      inputs: { x: { datatype: 'FP32', shape: [2, 64], data: x64 } },
    });
    expect(await c.next('error')).toMatchObject({
      ref: 'r2',
      error: { message: expect.stringMatching(/64 elements but shape \[2,64\] needs 128/) },
    });
    c.send({ type: 'run.start', requestId: 'r3', graph: 'nope', inputs: {} });
    expect(await c.next('error')).toMatchObject({ ref: 'r3', error: { code: 'unknown-graph' } });
    c.send({
      type: 'run.start',
      requestId: 'r4',
      graph: 'extractor',
      inputs: { x: { datatype: 'FP32', shape: [1000, 1000], binary: 0 } },
    });
    expect((await c.next('error')).error.message).toMatch(/maxTensorElements=50000/);
    c.send('x'.repeat(150_000));
    expect((await c.next('error')).error.message).toMatch(/maxWsMessageBytes=100000/);
    c.ws.send(Buffer.from([1, 2, 3]));
    expect((await c.next('error')).error.code).toBe('unexpected-binary');
    c.send({ type: 'run.cancel', runId: 'ghost' });
    expect((await c.next('error')).error.code).toBe('unknown-run');
    c.send({
      type: 'run.start',
      requestId: 'r5',
      graph: 'pipe',
      inputs: { x: { datatype: 'FP32', shape: [1, 64], data: x64 } },
    });
    expect((await c.next('run.completed')).outputs.logits?.shape).toEqual([1, 16]);
    c.send({ type: 'ping', at: 7 });
    expect(await c.next('pong')).toEqual({ type: 'pong', at: 7 });
    await c.close();
  });

  it('a run the engine refuses reports run.failed with the reason', async () => {
    const c = await connect(s.url);
    c.send({
      type: 'run.start',
      requestId: 'f',
      graph: 'acc',
      inputs: { x: { datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(1) } },
    });
    expect((await c.next('run.failed')).error.message).toMatch(/sequence/);
    await c.close();
  });
});

describe('sequence streams', () => {
  it('runs each append as one request of the sequence, carrying state, and ends it', async () => {
    const c = await connect(s.url);
    c.send({ type: 'stream.open', streamId: 's1', graph: 'acc', sequenceId: 77 });
    const chunk = { x: { datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(2) } };
    c.send({ type: 'stream.append', streamId: 's1', inputs: chunk });
    c.send({ type: 'stream.append', streamId: 's1', inputs: chunk });
    c.send({ type: 'stream.append', streamId: 's1', inputs: chunk, end: true });
    const bound = await c.next('sequence.bound');
    expect(bound).toMatchObject({ streamId: 's1', sequenceId: 77, model: 'acc' });
    const ys: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      ys.push((await c.next('run.completed')).outputs.y?.data?.[0]);
      expect(await c.next('sequence.chunk')).toMatchObject({ streamId: 's1', chunk: i });
    }
    expect(ys).toEqual([2, 4, 6]);
    expect(await c.next('sequence.ended')).toMatchObject({ streamId: 's1', sequenceId: 77, reason: 'end' });
    c.send({ type: 'stream.append', streamId: 's1', inputs: chunk });
    expect((await c.next('error')).error.code).toBe('unknown-stream');
    await c.close();
  });

  it('stream.end without a final chunk ends the sequence in the engine at once, not at the idle timeout', async () => {
    const c = await connect(s.url);
    c.send({ type: 'stream.open', streamId: 'open-end', graph: 'acc', sequenceId: 4242 });
    c.send({
      type: 'stream.append',
      streamId: 'open-end',
      inputs: { x: { datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(1) } },
    });
    await c.next('sequence.chunk', (m) => m.streamId === 'open-end');
    const engineIds = () => s.studio.engine.sequences().map((q) => String(q.sequenceId));
    expect(engineIds().filter((id) => id.endsWith('-4242'))).toHaveLength(1);
    c.send({ type: 'stream.end', streamId: 'open-end' });
    await c.next('sequence.ended', (m) => m.streamId === 'open-end');
    expect(engineIds().filter((id) => id.endsWith('-4242'))).toHaveLength(0);
    await c.close();
  });

  it('caps open sequences, naming the limit, and frees them on stream.end', async () => {
    const c = await connect(s.url);
    c.send({ type: 'stream.open', streamId: 'a', graph: 'acc' });
    c.send({ type: 'stream.open', streamId: 'b', graph: 'acc' });
    c.send({ type: 'stream.open', streamId: 'c', graph: 'acc' });
    expect(await c.next('error')).toMatchObject({
      ref: 'c',
      error: { message: expect.stringMatching(/maxOpenSequences=2/) },
    });
    c.send({ type: 'stream.end', streamId: 'a' });
    expect(await c.next('sequence.ended')).toMatchObject({ streamId: 'a', reason: 'end' });
    c.send({ type: 'stream.open', streamId: 'c', graph: 'acc' });
    c.send({ type: 'stream.end', streamId: 'c' });
    expect(await c.next('sequence.ended')).toMatchObject({ streamId: 'c' });
    await c.close();
  });
});

describe('upgrade checks and heartbeat', () => {
  it('refuses a foreign Origin and accepts the same host', async () => {
    await expect(connect(s.url, { headers: { origin: 'http://evil.example' } })).rejects.toThrow(/HTTP 403/);
    const host = new URL(s.url).host;
    const ok = await connect(s.url, { headers: { origin: `http://${host}` } });
    await ok.close();
  });

  it('terminates a client that stops answering pings', async () => {
    // A server of its own (over an empty repository: no models to load): a 300 ms heartbeat on the file's server
    // would also end the clients of the other tests whenever this process stalled that long between ping and pong.
    const t = await startTestServer({ repo: tempDir('ws-heartbeat-'), limits: { heartbeatMs: 300 } });
    try {
      const { port } = new URL(t.url);
      const sock = netConnect(Number(port), '127.0.0.1');
      sock.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      let head = '';
      sock.on('data', (d: Buffer) => {
        head += d.toString('latin1');
      });
      await new Promise<void>((resolve) => sock.on('close', () => resolve()));
      expect(head).toMatch(/^HTTP\/1\.1 101/);
    } finally {
      await t.close();
    }
  });
});

describe('token', () => {
  it('needs the token as subprotocol, query or bearer header', async () => {
    const t = await startTestServer({ token: 'tok-en-123' });
    try {
      await expect(connect(t.url)).rejects.toThrow(/HTTP 401/);
      await expect(connect(t.url, { protocols: ['studio-token.wrong-123'] })).rejects.toThrow(/HTTP 401/);
      const viaProtocol = await connect(t.url, { protocols: ['studio-token.tok-en-123'] });
      expect(viaProtocol.ws.protocol).toBe('studio-token.tok-en-123');
      await viaProtocol.close();
      await (await connect(t.url, { query: '?token=tok-en-123' })).close();
      await (await connect(t.url, { headers: { authorization: 'Bearer tok-en-123' } })).close();
    } finally {
      await t.close();
    }
  });
});
