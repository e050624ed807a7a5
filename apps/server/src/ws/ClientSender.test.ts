import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { ServerMessage } from '@ensemble-studio/core';
import { ClientSender } from './ClientSender.ts';

/** A real socket pair whose client stops reading, so the server's bufferedAmount grows. */
async function stalledPair() {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const serverSide = new Promise<WebSocket>((r) => wss.once('connection', r));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const received: ServerMessage[] = [];
  client.on('message', (d: Buffer, binary: boolean) => {
    if (!binary) received.push(JSON.parse(d.toString()) as ServerMessage);
  });
  await new Promise((r) => client.once('open', r));
  const ws = await serverSide;
  const stop = async () => {
    client.terminate();
    wss.close();
    await new Promise((r) => server.close(r));
  };
  return { ws, client, received, stop };
}

describe('ClientSender backpressure', () => {
  it('drops progress while the buffer is over the cap, never final results, and tells the client', async () => {
    const { ws, client, received, stop } = await stalledPair();
    const sender = new ClientSender(ws, 1024);
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = 'x'.repeat(64 * 1024);
    let i = 0;
    // write until the kernel buffers are full and ws starts buffering in user space
    while (ws.bufferedAmount <= 1024 && i < 10_000)
      sender.send({ type: 'notice', level: 'info', message: `${i++}${big}` });
    expect(ws.bufferedAmount).toBeGreaterThan(1024);
    for (let n = 0; n < 5; n++) sender.send({ type: 'node.started', runId: 'r', nodeId: `n${n}`, atMs: n });
    sender.send({ type: 'run.completed', runId: 'r', outputs: {}, timings: [], totalMs: 1 });
    expect(sender.droppedCount).toBe(5);
    (client as unknown as { _socket: { resume(): void } })._socket.resume();
    await expect.poll(() => received.some((m) => m.type === 'run.completed'), { timeout: 20_000 }).toBe(true);
    expect(received.filter((m) => m.type === 'node.started')).toEqual([]);
    expect(received.find((m) => m.type === 'backpressure')).toMatchObject({
      dropped: 1,
      policy: expect.stringMatching(/^drop-progress: .*maxBufferedBytes/),
    });
    // delivery resumes once drained, with the count of what was dropped
    await expect.poll(() => ws.bufferedAmount, { timeout: 20_000 }).toBe(0);
    sender.send({ type: 'node.started', runId: 'r', nodeId: 'late', atMs: 9 });
    await expect.poll(() => received.some((m) => m.type === 'node.started'), { timeout: 20_000 }).toBe(true);
    expect(received.filter((m) => m.type === 'backpressure').at(-1)).toMatchObject({ dropped: 5 });
    await stop();
  });

  it('stops reading a client that does not read, until what was sent to it is written out', async () => {
    const { ws, client, received, stop } = await stalledPair();
    const sender = new ClientSender(ws, 1024);
    const fromClient: string[] = [];
    ws.on('message', (d: Buffer) => fromClient.push(d.toString()));
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    const frame = new Uint8Array(256 * 1024);
    let i = 0;
    // Final results are never dropped: without a hold, a client that never reads grows the server's memory.
    while (ws.bufferedAmount <= 1024 && i < 10_000)
      sender.send({ type: 'run.completed', runId: `r${i++}`, outputs: {}, timings: [], totalMs: 1 }, [frame]);
    client.send('while held');
    await new Promise((r) => setTimeout(r, 200));
    expect(fromClient).toEqual([]);
    expect(ws.isPaused).toBe(true);
    (client as unknown as { _socket: { resume(): void } })._socket.resume();
    await expect.poll(() => fromClient, { timeout: 20_000 }).toEqual(['while held']);
    expect(ws.isPaused).toBe(false);
    expect(received.filter((m) => m.type === 'run.completed')).toHaveLength(i);
    await stop();
  });
});
