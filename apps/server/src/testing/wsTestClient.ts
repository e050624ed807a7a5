import WebSocket from 'ws';
import type { ServerMessage } from '@ensemble-studio/core';

export type Received = { json: ServerMessage } | { binary: Buffer };

/**
 * A real ws client that records every message, with `next(predicate)` to await one.
 * @example const c = await connect(url); c.send({ type: 'ping', at: 1 }); await c.next((m) => m.type === 'pong')
 */
export async function connect(
  httpUrl: string,
  opts: { protocols?: string[]; headers?: Record<string, string>; query?: string } = {},
) {
  const ws = new WebSocket(`${httpUrl.replace(/^http/, 'ws')}/ws${opts.query ?? ''}`, opts.protocols ?? [], {
    headers: opts.headers ?? {},
  });
  const received: Received[] = [];
  const waiters: { pred: (m: ServerMessage) => boolean; resolve: (m: ServerMessage) => void; from: number }[] = [];
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    received.push(isBinary ? { binary: data } : { json: JSON.parse(data.toString()) as ServerMessage });
    for (const w of [...waiters]) {
      const hit = received.slice(w.from).find((r): r is { json: ServerMessage } => 'json' in r && w.pred(r.json));
      if (hit) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(hit.json);
      }
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  let cursor = 0;
  return {
    ws,
    received,
    send: (m: unknown) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
    /** Starts run `requestId` of `graph` with one FP32 input `name` given as JSON data. */
    startJson(requestId: string, graph: string, name: string, shape: number[], data: number[]): void {
      ws.send(JSON.stringify(runStart(requestId, graph, name, { datatype: 'FP32', shape, data })));
    },
    /** Starts run `requestId` of `graph` with one FP32 input `name` sent as a binary frame. */
    startBinary(requestId: string, graph: string, name: string, shape: number[], data: Float32Array): void {
      ws.send(JSON.stringify(runStart(requestId, graph, name, { datatype: 'FP32', shape, binary: 0 })));
      ws.send(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    },
    /** The binary frame that follows message `m` (a large output's), once it has arrived. */
    async frameAfter(m: ServerMessage): Promise<Buffer> {
      const at = received.findIndex((r) => 'json' in r && r.json === m) + 1;
      while (received.length <= at) await new Promise((resolve) => setTimeout(resolve, 5));
      const frame = received[at]!;
      if (!('binary' in frame)) throw new Error(`message ${at} is not a binary frame`);
      return frame.binary;
    },
    /** The first message after the previous `next` match that satisfies `pred`. */
    next<T extends ServerMessage['type']>(
      type: T,
      pred: (m: Extract<ServerMessage, { type: T }>) => boolean = () => true,
    ): Promise<Extract<ServerMessage, { type: T }>> {
      return new Promise((resolve) => {
        const p = (m: ServerMessage) => m.type === type && pred(m as Extract<ServerMessage, { type: T }>);
        const from = cursor;
        const hitIndex = received.findIndex((r, i) => i >= from && 'json' in r && p(r.json));
        if (hitIndex >= 0) {
          cursor = hitIndex + 1;
          return resolve((received[hitIndex] as { json: ServerMessage }).json as Extract<ServerMessage, { type: T }>);
        }
        waiters.push({
          pred: p,
          from,
          resolve: (m) => {
            cursor = received.length;
            resolve(m as Extract<ServerMessage, { type: T }>);
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) resolve();
        else {
          ws.once('close', () => resolve());
          ws.close();
        }
      }),
  };
}

/** A `run.start` of `graph` with the one input `name`. */
function runStart(requestId: string, graph: string, name: string, input: Record<string, unknown>) {
  return { type: 'run.start', requestId, graph, inputs: { [name]: input } };
}
