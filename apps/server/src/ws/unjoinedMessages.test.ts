import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BodyChunks } from '../http/bodyChunks.ts';
import WebSocket, { WebSocketServer, type ServerOptions } from 'ws';
import { startTestServer } from '../testing/testServer.ts';
import { connect } from '../testing/wsTestClient.ts';
import { UNJOINED_MESSAGE_BYTES } from './attachRunSocket.ts';

// Our patch of ws (patches/ws@8.23.0.patch): messages of at least `unjoinedMessageBytes` are handed over as the
// socket reads they arrived in, unmasked, never joined on the main thread (a 34 MB message joined there touched
// 8,700 fresh pages in one turn: 133 ms of CPU while every other client waited).

type Got = { data: Buffer | Buffer[]; isBinary: boolean };

async function patchedServer(threshold: number) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', unjoinedMessageBytes: threshold } as ServerOptions);
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const got: Got[] = [];
  const waiters: (() => void)[] = [];
  wss.on('connection', (ws) =>
    ws.on('message', (data: Buffer | Buffer[], isBinary) => {
      got.push({ data, isBinary });
      for (const w of waiters.splice(0)) w();
    }),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject));
  const received = async (n: number) => {
    while (got.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    return got.slice(0, n);
  };
  const close = async () => {
    client.terminate();
    await new Promise((resolve) => wss.close(resolve));
  };
  return { client, received, close };
}

/** Bytes whose every position differs from its neighbours', so a piece unmasked with the wrong phase shows. */
function pattern(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed + (i >> 8)) & 0x7f;
  return b;
}

describe('ws patched to hand large messages over unjoined', () => {
  it('a large text or binary frame comes as several unmasked pieces; a small one as one Buffer', async () => {
    const s = await patchedServer(100_000);
    try {
      const bigText = pattern(300_001, 1);
      const bigBinary = pattern(250_003, 2);
      const small = pattern(99_999, 3);
      s.client.send(bigText, { binary: false });
      s.client.send(small, { binary: true });
      s.client.send(bigBinary, { binary: true });
      // The next frame's header shares the socket read that ends the large frame.
      s.client.send('after', { binary: false });
      const [a, b, c, d] = await s.received(4);
      expect(Array.isArray(a!.data) && a!.data.length).toBeGreaterThan(1);
      expect(a!.isBinary).toBe(false);
      expect(Buffer.concat(a!.data as Buffer[]).equals(bigText)).toBe(true);
      expect(Buffer.isBuffer(b!.data) && b!.data.equals(small)).toBe(true);
      expect(Array.isArray(c!.data) && c!.isBinary).toBe(true);
      expect(Buffer.concat(c!.data as Buffer[]).equals(bigBinary)).toBe(true);
      expect(String(d!.data)).toBe('after');
    } finally {
      await s.close();
    }
  });

  it('a message sent in fragments comes unjoined when the fragments add up to the threshold', async () => {
    const s = await patchedServer(100_000);
    try {
      const parts = [pattern(60_001, 4), pattern(30_002, 5), pattern(20_003, 6)];
      parts.forEach((p, i) => s.client.send(p, { binary: true, fin: i === parts.length - 1 }));
      const smallParts = [pattern(40_000, 7), pattern(40_000, 8)];
      smallParts.forEach((p, i) => s.client.send(p, { binary: false, fin: i === smallParts.length - 1 }));
      const [a, b] = await s.received(2);
      expect(Array.isArray(a!.data)).toBe(true);
      expect(Buffer.concat(a!.data as Buffer[]).equals(Buffer.concat(parts))).toBe(true);
      expect(Buffer.isBuffer(b!.data) && b!.data.equals(Buffer.concat(smallParts))).toBe(true);
    } finally {
      await s.close();
    }
  });
});

describe('the run socket takes large messages as pieces', () => {
  let s: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    s = await startTestServer({ limits: { maxTensorElements: 2_000_000 } });
  });
  afterAll(async () => s?.close());

  const rowsOver = (bytes: number) => Math.ceil(bytes / (64 * 4)) + 3;
  const input = (rows: number) => new Float32Array(rows * 64).map((_, i) => ((i * 7) % 11) / 11);

  it('a binary frame over the threshold is joined in the body worker and runs as the same tensor', async () => {
    const rows = rowsOver(UNJOINED_MESSAGE_BYTES);
    const x = input(rows);
    const join = vi.spyOn(s.studio.bodies, 'join');
    const c = await connect(s.url);
    c.startBinary('big', 'extractor', 'x', [rows, 64], x);
    const big = await c.next('run.completed');
    expect(join).toHaveBeenCalledTimes(1);
    join.mockRestore();
    expect(big.outputs.feat).toEqual({ datatype: 'FP32', shape: [rows, 256], binary: 0 });
    const frame = await c.frameAfter(big);
    const feat = new Float32Array(frame.buffer, frame.byteOffset, rows * 256);
    // The last row alone, sent as JSON: the joined frame's last row must give the same features.
    const last = Array.from(x.subarray((rows - 1) * 64));
    c.startJson('one', 'extractor', 'x', [1, 64], last);
    const one = await c.next('run.completed');
    const expected = one.outputs.feat!.data as number[];
    Array.from(feat.subarray((rows - 1) * 256)).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 4));
    await c.close();
  });

  it('a text message over the threshold is parsed in the body worker', async () => {
    const rows = rowsOver(UNJOINED_MESSAGE_BYTES / 2);
    const data = Array.from(input(rows));
    const text = JSON.stringify({
      type: 'run.start',
      requestId: 'txt',
      graph: 'extractor',
      inputs: { x: { datatype: 'FP32', shape: [rows, 64], data } },
    });
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(UNJOINED_MESSAGE_BYTES);
    const wsText = vi.spyOn(s.studio.bodies, 'wsText');
    const c = await connect(s.url);
    c.send(text);
    const done = await c.next('run.completed');
    expect(wsText.mock.calls.map(([data]) => data instanceof BodyChunks)).toEqual([true]);
    wsText.mockRestore();
    expect(done.outputs.feat).toMatchObject({ datatype: 'FP32', shape: [rows, 256] });
    await c.close();
  });

  it('text that is not UTF-8 closes the socket with 1007 and a reason, large (checked in the worker) or small', async () => {
    for (const pad of [UNJOINED_MESSAGE_BYTES, 10]) {
      const c = await connect(s.url);
      const closed = new Promise<[number, string]>((resolve) =>
        c.ws.once('close', (code, reason) => resolve([code, String(reason)])),
      );
      c.ws.send(Buffer.from(`{"type":"ping","at":1,"pad":"${'a'.repeat(pad)}\xff"}`, 'latin1'), { binary: false });
      expect(await closed).toEqual([1007, 'invalid UTF-8 sequence']);
    }
  });
});
