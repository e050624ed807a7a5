// The fifth independent hostile-input round, as regression cases: the clients that send without reading what comes
// back (an endless pipelining connection, a WebSocket client that starts runs and never reads their results, a
// gRPC stream whose responses are never read). Each asserts the server's memory stays bounded and that a
// bystander's /v2/health/ready, asked from a process of its own, kept answering meanwhile.
import { readFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { copyExamples, spawnStudio } from '../support/server.ts';
import { encodeRequest, grpcFrame, unreadModelStream } from '../../apps/server/src/testing/grpcTestClient.ts';
import { connect as wsConnect } from '../../apps/server/src/testing/wsTestClient.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(() => spawnStudio(copyExamples({ linkModels: true })));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server's resident memory in MB. */
function serverRssMb(): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${studio.child.pid}/status`, 'utf8'));
  return Math.round(Number(m![1]) / 1024);
}

/** Runs `send` while sampling the server's memory; resolves with how far it rose above where it started. */
async function rssRise(send: () => Promise<void>): Promise<number> {
  const start = serverRssMb();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, serverRssMb())), 50);
  try {
    await send();
  } finally {
    clearInterval(timer);
  }
  return peak - start;
}

describe('hostile input, fifth round: clients that do not read', () => {
  it('a connection pipelining without end while reading its answers is not read ahead without bound', async () => {
    const u = new URL(studio.url);
    const rise = await probe('pipelined GETs for 4 s, then closed', () =>
      rssRise(async () => {
        const s = tcpConnect(Number(u.port), u.hostname);
        s.on('data', () => undefined);
        s.on('error', () => undefined);
        const chunk = Buffer.from(`GET /v2/health/live HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`.repeat(2000));
        const until = Date.now() + 4000;
        while (Date.now() < until) if (!s.write(chunk)) await new Promise((r) => s.once('drain', r));
        s.destroy();
        // Dropping what it queued is part of the cost: 550,000 queued requests held everyone for seconds.
        await sleep(1500);
      }),
    );
    expect(rise).toBeLessThan(300);
  });

  it('a WebSocket client that starts runs and never reads their results is not read from', async () => {
    const { ws } = await wsConnect(studio.url);
    const page = Buffer.alloc(2300 * 2300 * 3, 200);
    const rise = await probe('30 runs of a 21 MB result, never read', () =>
      rssRise(async () => {
        // ws stops reading the socket: what the server sends stays in its buffers, as with a client that never reads.
        ws.pause();
        for (let i = 0; i < 30; i++) {
          const image = { datatype: 'UINT8', shape: [2300, 2300, 3], binary: 0 };
          ws.send(
            JSON.stringify({ type: 'run.start', requestId: `r${i}`, graph: 'python_text_detect', inputs: { image } }),
          );
          ws.send(page, { binary: true });
          await sleep(300);
        }
        await sleep(3000);
      }),
    );
    ws.terminate();
    // Without the hold every result was kept for the client: +630 MB for these 30.
    expect(rise).toBeLessThan(300);
  }, 120_000);

  it('a gRPC stream whose responses are never read stops being read', async () => {
    await expect.poll(() => /grpc listening on (\S+)/.test(studio.output())).toBe(true);
    const address = /grpc listening on (\S+)/.exec(studio.output())![1]!;
    const { session, stream } = unreadModelStream(address);
    const message = encodeRequest('ModelInfer', {
      model_name: 'python_chunk_stream',
      inputs: [{ name: 'signal', datatype: 'FP32', shape: [1_000_000] }],
      raw_input_contents: [Buffer.alloc(4_000_000)],
    });
    const frame = grpcFrame(message);
    let written = 0;
    const rise = await probe('100 decoupled requests (250 responses each), never read', () =>
      rssRise(async () => {
        // Written as the server takes them: a write that has not drained in 3 s means the server stopped reading.
        for (; written < 100; written++) {
          if (stream.write(frame)) continue;
          const drained = await Promise.race([new Promise((r) => stream.once('drain', () => r(true))), sleep(3000)]);
          if (!drained) break;
        }
        await sleep(2000);
      }),
    );
    session.destroy();
    // Without the hold the server read all 100 and buffered every response (+850 MB for 150); with it, it stops
    // once its responses back up and holds only the runs it had already read (at most maxConcurrentRuns).
    expect(written).toBeLessThan(100);
    expect(rise).toBeLessThan(800);
  }, 120_000);
});
