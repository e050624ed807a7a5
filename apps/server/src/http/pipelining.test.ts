import { createServer, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { oneRequestAtATime } from './pipelining.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A server answering every request with its path, recording the order in which requests were handled. */
async function recordingServer(
  wrap: (h: RequestListener) => RequestListener,
): Promise<{ port: number; handled: string[] }> {
  const handled: string[] = [];
  server = createServer(
    wrap((req, res) => {
      handled.push(req.url ?? '');
      res.end(req.url);
    }),
  );
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server!.address() as AddressInfo).port, handled };
}

/** Writes `count` pipelined GETs /a0 … in one write; resolves with everything the server sent back once all are in. */
function pipelined(port: number, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (got.split('HTTP/1.1 200').length - 1 === count) {
        s.destroy();
        resolve(got);
      }
    });
    s.on('error', reject);
    const reqs = Array.from({ length: count }, (_, i) => `GET /a${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
    s.write(reqs);
  });
}

/** One GET /b on a connection of its own, sent once the server has handled `/a0`. */
async function bystander(port: number, handled: string[]): Promise<void> {
  while (!handled.includes('/a0')) await new Promise((r) => setImmediate(r));
  await fetch(`http://127.0.0.1:${port}/b`).then((r) => r.text());
}

describe('oneRequestAtATime', () => {
  it("lets another connection's request in between one connection's pipelined requests", async () => {
    const { port, handled } = await recordingServer(oneRequestAtATime);
    const [answers] = await Promise.all([pipelined(port, 300), bystander(port, handled)]);
    // Without it, Node's parser hands all 300 requests of the one chunk over in one turn: /b comes after all of them.
    expect(handled.indexOf('/b')).toBeLessThan(150);
    // Every pipelined request is answered, in order, although the connection was paused past 64 waiting.
    const bodies = [...answers.matchAll(/\r\n\r\n(\/a\d+)/g)].map((m) => m[1]);
    expect(bodies).toEqual(Array.from({ length: 300 }, (_, i) => `/a${i}`));
  });

  it('does not run the queued requests of a connection that went away', async () => {
    let ran = 0;
    const { port } = await recordingServer((h) =>
      oneRequestAtATime((req, res) => {
        ran++;
        // The first request is answered only after the client has gone.
        if (req.url === '/a0') setTimeout(() => h(req, res), 200);
        else h(req, res);
      }),
    );
    const s = connect(port, '127.0.0.1');
    s.write(Array.from({ length: 50 }, (_, i) => `GET /a${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    await new Promise((r) => setTimeout(r, 50));
    s.destroy();
    await new Promise((r) => setTimeout(r, 400));
    expect(ran).toBe(1);
  });

  it('does not run the requests queued behind a response that closes the connection', async () => {
    const ran: string[] = [];
    const { port } = await recordingServer((h) =>
      oneRequestAtATime((req, res) => {
        ran.push(req.url ?? '');
        if (req.url === '/a0') res.setHeader('Connection', 'close');
        h(req, res);
      }),
    );
    const s = connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.write(Array.from({ length: 5 }, (_, i) => `GET /a${i} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''));
    await new Promise((r) => s.on('close', r));
    expect(ran).toEqual(['/a0']);
    expect(got.split('HTTP/1.1 ').length - 1).toBe(1);
  });

  it('stops reading a connection that pipelines without end while it reads its answers', async () => {
    // Requests Node has handed over but the handler has not started: what the connection holds in memory.
    let received = 0;
    let handled = 0;
    let mostWaiting = 0;
    const counting =
      (inner: RequestListener): RequestListener =>
      (req, res) => {
        received++;
        mostWaiting = Math.max(mostWaiting, received - handled);
        inner(req, res);
      };
    const { port } = await recordingServer((h) =>
      counting(
        oneRequestAtATime((req, res) => {
          handled++;
          h(req, res);
        }),
      ),
    );
    const s = connect(port, '127.0.0.1');
    s.on('data', () => undefined);
    const chunk = Buffer.from('GET /a HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2000));
    // 200,000 requests (6 MB), written as fast as the connection takes them.
    for (let i = 0; i < 100; i++) if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
    s.destroy();
    // A paused connection holds what it has read: the waiting requests plus one read's worth (64 KiB, ~2,200 of
    // these). Node resumed the socket after every response, and the queue grew to tens of thousands.
    expect(mostWaiting).toBeLessThan(64 + 3000);
  });
});
