// A small WebSocket test client for the studio's /ws protocol: collects every message, waits for the one you want.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from './mutate.ts';

/** The subset of the `ws` client these tests use (the package lives in apps/server, not at the root). */
export interface RawSocket {
  readyState: number;
  bufferedAmount: number;
  send(data: string | Uint8Array, cb?: (err?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'message', cb: (data: Buffer, isBinary: boolean) => void): void;
  on(event: 'open', cb: () => void): void;
  on(event: 'close', cb: (code: number, reason: Buffer) => void): void;
  on(event: 'error', cb: (err: Error) => void): void;
}
type WsCtor = new (url: string, protocols?: string | string[], opts?: Record<string, unknown>) => RawSocket;
const WebSocketImpl = createRequire(join(ROOT, 'apps/server/package.json'))('ws') as WsCtor;

export type Msg = { type: string; [k: string]: any };

export interface TestSocket {
  raw: RawSocket;
  messages: Msg[];
  binaries: Buffer[];
  closed: Promise<{ code: number }>;
  isOpen(): boolean;
  send(msg: unknown): void;
  sendRaw(data: string | Uint8Array): void;
  /** Resolves with the first message (from `from` on) matching `pred`; rejects after `timeoutMs` or when the socket closes. */
  next(pred: (m: Msg) => boolean, timeoutMs?: number, from?: number): Promise<Msg>;
  /** Sends a ping and waits for its pong: proves the connection still answers. */
  roundTrip(timeoutMs?: number): Promise<void>;
  close(): void;
}

let pingSeq = 1;

/**
 * Opens `/ws` on a running server and waits for `hello`.
 * @example const c = await connect(url); c.send({ type: 'ping', at: 1 }); await c.next((m) => m.type === 'pong')
 */
export async function connect(httpUrl: string, opts: { token?: string; origin?: string } = {}): Promise<TestSocket> {
  const url = `${httpUrl.replace(/^http/, 'ws')}/ws`;
  const raw = new WebSocketImpl(
    url,
    opts.token ? [`studio-token.${opts.token}`] : undefined,
    opts.origin ? { origin: opts.origin } : {},
  );
  const messages: Msg[] = [];
  const binaries: Buffer[] = [];
  const waiters = new Set<() => void>();
  let open = false;
  const closed = new Promise<{ code: number }>((resolve) =>
    raw.on('close', (code) => {
      open = false;
      resolve({ code });
      for (const w of waiters) w();
    }),
  );
  raw.on('error', () => undefined);
  raw.on('message', (data, isBinary) => {
    if (isBinary) binaries.push(data);
    else messages.push(JSON.parse(data.toString('utf8')) as Msg);
    for (const w of waiters) w();
  });
  await new Promise<void>((resolve, reject) => {
    raw.on('open', () => {
      open = true;
      resolve();
    });
    raw.on('close', (code) => reject(new Error(`socket closed during the handshake (${code})`)));
    raw.on('error', reject);
  });
  const sock: TestSocket = {
    raw,
    messages,
    binaries,
    closed,
    isOpen: () => open && raw.readyState === 1,
    send: (msg) => raw.send(JSON.stringify(msg)),
    sendRaw: (data) => raw.send(data),
    next: (pred, timeoutMs = 30_000, from = 0) =>
      new Promise<Msg>((resolve, reject) => {
        let idx = from;
        const check = (): boolean => {
          for (; idx < messages.length; idx++) {
            const m = messages[idx]!;
            if (pred(m)) {
              done();
              resolve(m);
              return true;
            }
          }
          if (!open) {
            done();
            reject(new Error(`socket closed while waiting (last: ${JSON.stringify(messages.at(-1))?.slice(0, 300)})`));
            return true;
          }
          return false;
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(`timed out after ${timeoutMs} ms (last: ${JSON.stringify(messages.at(-1))?.slice(0, 300)})`),
          );
        }, timeoutMs);
        const waiter = () => {
          check();
        };
        const done = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        if (!check()) waiters.add(waiter);
      }),
    roundTrip: async (timeoutMs = 10_000) => {
      const at = pingSeq++;
      const from = messages.length;
      sock.send({ type: 'ping', at });
      await sock.next((m) => m.type === 'pong' && m.at === at, timeoutMs, from);
    },
    close: () => raw.close(),
  };
  await sock.next((m) => m.type === 'hello', 10_000);
  return sock;
}
