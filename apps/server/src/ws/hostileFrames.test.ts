import { describe, expect, it } from 'vitest';
import { connect } from '../testing/wsTestClient.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile({ limits: { maxWsMessageBytes: 100_000, maxTensorElements: 50_000 } });

const x64 = Array.from({ length: 64 }, (_, i) => (i % 5) / 5);

describe('a frame over the hard cap', () => {
  it('closes the socket with 1009 and a reason naming maxWsMessageBytes', async () => {
    const c = await connect(s.url);
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      c.ws.once('close', (code: number, reason: Buffer) => resolve({ code, reason: reason.toString() })),
    );
    // The cap is the limit plus 1 MiB (messages between the two get an error message and the socket stays open).
    c.ws.send(Buffer.alloc(100_000 + 1024 * 1024 + 1));
    expect(await closed).toEqual({ code: 1009, reason: 'message too big: over the limit maxWsMessageBytes=100000' });
  });
});

describe('binary frames a message announces', () => {
  it('a message cannot announce more frames than it has binary inputs', async () => {
    const c = await connect(s.url);
    c.send({
      type: 'run.start',
      requestId: 'far',
      graph: 'extractor',
      inputs: { x: { datatype: 'FP32', shape: [1, 64], binary: 100000 } },
    });
    expect(await c.next('error')).toMatchObject({
      ref: 'far',
      error: { code: 'bad-message', message: expect.stringMatching(/binary frame 100000 .* announces 1 binary input/) },
    });
    // nothing is pending: a frame now is unexpected, and the connection still runs graphs
    c.ws.send(Buffer.alloc(256));
    expect((await c.next('error')).error.code).toBe('unexpected-binary');
    c.send({
      type: 'run.start',
      requestId: 'ok',
      graph: 'extractor',
      inputs: { x: { datatype: 'FP32', shape: [1, 64], data: x64 } },
    });
    expect((await c.next('run.completed')).outputs.feat?.shape).toEqual([1, 256]);
    await c.close();
  });

  it('a frame of the wrong size is refused when it arrives', async () => {
    const c = await connect(s.url);
    c.send({
      type: 'run.start',
      requestId: 'size',
      graph: 'extractor',
      inputs: { x: { datatype: 'FP32', shape: [2, 64], binary: 0 } },
    });
    c.ws.send(Buffer.alloc(90_000));
    expect(await c.next('error')).toMatchObject({
      ref: 'size',
      error: { code: 'bad-input', message: 'binary frame 0 has 90000 bytes but its input needs 512' },
    });
    await c.close();
  });

  it('a message and its frames together are held to maxWsMessageBytes', async () => {
    const c = await connect(s.url);
    // BYTES frames have no fixed size: four of 40 kB pass one by one but not together
    const inputs = Object.fromEntries([0, 1, 2, 3].map((i) => [`t${i}`, { datatype: 'BYTES', shape: [1], binary: i }]));
    c.send({ type: 'run.start', requestId: 'sum', graph: 'extractor', inputs });
    for (let i = 0; i < 4; i++) c.ws.send(Buffer.alloc(40_000));
    expect(await c.next('error')).toMatchObject({
      ref: 'sum',
      error: { code: 'limit', message: expect.stringMatching(/maxWsMessageBytes=100000/) },
    });
    await c.close();
  });
});

describe('run.start values a timer or a tensor cannot hold', () => {
  it('refuses timeoutMs over 2^31-1 ms', async () => {
    const c = await connect(s.url);
    c.send({
      type: 'run.start',
      requestId: 't',
      graph: 'extractor',
      timeoutMs: 2 ** 31,
      inputs: { x: { datatype: 'FP32', shape: [1, 64], data: x64 } },
    });
    expect(await c.next('error')).toMatchObject({
      ref: 't',
      error: {
        code: 'bad-message',
        message: expect.stringMatching(/timeoutMs 2147483648 is over the largest timer, 2147483647 ms/),
      },
    });
    c.send({
      type: 'run.start',
      requestId: 'ok',
      graph: 'extractor',
      timeoutMs: 2 ** 31 - 1,
      inputs: { x: { datatype: 'FP32', shape: [1, 64], data: x64 } },
    });
    expect((await c.next('run.completed')).outputs.feat?.shape).toEqual([1, 256]);
    await c.close();
  });

  it('refuses FP32 JSON values that would overflow to Infinity', async () => {
    const c = await connect(s.url);
    c.send({
      type: 'run.start',
      requestId: 'big',
      graph: 'extractor',
      inputs: { x: { datatype: 'FP32', shape: [1, 64], data: [3.5e38, ...x64.slice(1)] } },
    });
    expect(await c.next('error')).toMatchObject({
      ref: 'big',
      error: { message: expect.stringMatching(/element 0 .* outside FP32's range/) },
    });
    await c.close();
  });

  it('refuses a message with more inputs than a graph can have nodes, before decoding any', async () => {
    const c = await connect(s.url);
    const inputs: Record<string, object> = {};
    for (let i = 0; i < 1025; i++) inputs[`k${i}`] = { datatype: 'FP32', shape: [1], data: [1] };
    c.send({ type: 'run.start', requestId: 'many', graph: 'extractor', inputs });
    expect(await c.next('error')).toMatchObject({
      ref: 'many',
      error: { code: 'limit', message: 'run.start has 1025 inputs: over the limit maxGraphNodes=1024' },
    });
    await c.close();
  });
});
