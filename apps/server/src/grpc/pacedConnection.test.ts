import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DATA, frame, PREFACE } from '../testing/http2Frames.ts';
import { loopTurns } from '../testing/loopTurns.ts';
import { PACED_SLICE_BYTES, PacedConnection } from './pacedConnection.ts';

let server: Server | undefined;
afterEach(() => server?.close());

/** A loopback connection: the server's end wrapped in a PacedConnection, and the client's socket. */
async function pacedPair(): Promise<{ paced: PacedConnection; client: Socket }> {
  const accepted = new Promise<PacedConnection>((resolve) => {
    server = createServer((socket) => resolve(new PacedConnection(socket)));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server!.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  return { paced: await accepted, client };
}

describe('PacedConnection', () => {
  it("turns Nagle's algorithm off on its socket (without it a unary gRPC call waited ~40 ms for a delayed ACK)", async () => {
    const noDelay: (boolean | undefined)[] = [];
    const wrapped = new Promise<PacedConnection>((resolve) => {
      server = createServer((socket) => {
        const set = socket.setNoDelay.bind(socket);
        socket.setNoDelay = (v?: boolean) => (noDelay.push(v), set(v));
        resolve(new PacedConnection(socket));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const client = connect((server!.address() as { port: number }).port, '127.0.0.1');
    const paced = await wrapped;
    expect(noDelay).toEqual([true]);
    paced.destroy();
    client.destroy();
  });

  it('hands on what the peer sent in order, one slice per turn of the event loop, then its end', async () => {
    const { paced, client } = await pacedPair();
    const sent = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    client.end(sent);
    const slices: Buffer[] = [];
    let turn = 0;
    const spin = setInterval(() => turn++, 0);
    const turns = new Set<number>();
    paced.on('data', (b: Buffer) => {
      slices.push(b);
      turns.add(turn);
    });
    await new Promise<void>((resolve) => paced.once('end', resolve));
    clearInterval(spin);
    expect(Buffer.concat(slices).equals(sent)).toBe(true);
    expect(Math.max(...slices.map((b) => b.length))).toBeLessThanOrEqual(PACED_SLICE_BYTES);
    expect(slices.length).toBeGreaterThanOrEqual(Math.ceil(sent.length / PACED_SLICE_BYTES));
    // Timers ran between the slices: no single turn took them all.
    expect(turns.size).toBeGreaterThan(1);
    // Its end is the connection's end: it closes (the peer's close came while slices were still to go).
    await new Promise<void>((resolve) => (paced.closed ? resolve() : paced.once('close', resolve)));
  });

  it("hands HTTP/2 a slice a turn however many frames it holds (a frame's header and payload are two pieces)", async () => {
    const { paced, client } = await pacedPair();
    const frames = Array.from({ length: 2000 }, () => frame(DATA, 0, 1, Buffer.alloc(100, 7)));
    const sent = Buffer.concat([PREFACE, ...frames]);
    client.end(sent);
    const got: Buffer[] = [];
    const loop = loopTurns();
    const turns = new Set<number>();
    paced.on('data', (b: Buffer) => {
      got.push(b);
      turns.add(loop.count());
    });
    await new Promise<void>((resolve) => paced.once('end', resolve));
    loop.stop();
    expect(Buffer.concat(got).equals(sent)).toBe(true);
    // 4,000 pieces in ~14 slices, not one turn each.
    expect(turns.size).toBeLessThanOrEqual(Math.ceil(sent.length / PACED_SLICE_BYTES) + 4);
  });

  it('hands on a request that fits the turn’s slice in the turn it is read, without pausing the socket', async () => {
    const { paced, client } = await pacedPair();
    const loop = loopTurns();
    let readIn = -1;
    paced.socket.prependListener('data', () => (readIn = loop.count()));
    let paused = 0;
    const pause = paced.socket.pause.bind(paced.socket);
    paced.socket.pause = () => (paused++, pause());
    const request = Buffer.concat([PREFACE, frame(DATA, 0, 1, Buffer.alloc(1000, 3))]);
    const got = new Promise<{ turn: number; b: Buffer }>((resolve) =>
      paced.once('data', (b: Buffer) => resolve({ turn: loop.count(), b })),
    );
    client.write(request);
    const { turn, b } = await got;
    loop.stop();
    expect(turn).toBe(readIn);
    expect(paused).toBe(0);
    // The guard splits frames into header and payload: the rest of the request followed in the same turn.
    expect(request.subarray(0, b.length).equals(b)).toBe(true);
    paced.destroy();
    client.destroy();
  });

  it('writes one HTTP/2 write’s buffers to the socket in one go, in order', async () => {
    const { paced, client } = await pacedPair();
    let corked = 0;
    const cork = paced.socket.cork.bind(paced.socket);
    paced.socket.cork = () => (corked++, cork());
    const got: Buffer[] = [];
    client.on('data', (b: Buffer) => got.push(b));
    const ended = new Promise<void>((resolve) => client.once('end', resolve));
    // As Node's HTTP/2 writes through a JS stream: corked, one write per buffer, uncorked.
    paced.cork();
    for (const word of ['headers ', 'message ', 'trailers']) paced.write(Buffer.from(word));
    paced.uncork();
    paced.end();
    await ended;
    expect(Buffer.concat(got).toString()).toBe('headers message trailers');
    expect(corked).toBe(1);
    client.destroy();
  });

  it('writes go to the peer, the peer reads the end, and the socket reports its addresses', async () => {
    const { paced, client } = await pacedPair();
    expect(paced.remoteAddress).toBe('127.0.0.1');
    expect(paced.localPort).toBe((server!.address() as { port: number }).port);
    const got: Buffer[] = [];
    client.on('data', (b: Buffer) => got.push(b));
    const ended = new Promise<void>((resolve) => client.once('end', resolve));
    paced.end(Buffer.from('pong'));
    await ended;
    expect(Buffer.concat(got).toString()).toBe('pong');
    client.destroy();
  });

  it('is destroyed when the peer resets the connection', async () => {
    const { paced, client } = await pacedPair();
    paced.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => paced.once('close', resolve));
    client.resetAndDestroy();
    await closed;
    expect(paced.destroyed).toBe(true);
  });
});
