import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile({ limits: { maxBodyBytes: 1_000_000, maxApiBodyBytes: 100_000 } });

/** Sends only the head of a POST announcing `length` bytes (and one byte of it); resolves with all the server sent once it closes. */
function announce(path: string, length: number): Promise<string> {
  const u = new URL(s.url);
  return new Promise((resolve, reject) => {
    const sock = connect(Number(u.port), u.hostname);
    let got = '';
    sock.on('data', (d) => (got += d.toString('latin1')));
    sock.on('end', () => resolve(got));
    sock.on('error', reject);
    sock.write(
      `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`,
    );
  });
}

describe('a body announced over the limit', () => {
  it('is refused from its Content-Length, before any of it is read, and the connection closed', async () => {
    // Without this the server waits for the 10^12 bytes before answering (the body readers read it all to discard it).
    const kserve = await announce('/v2/models/extractor/infer', 1e12);
    expect(kserve).toMatch(/^HTTP\/1\.1 413 /);
    expect(kserve).toContain('{"error":"request body is over the limit maxBodyBytes=1000000"}');
    const api = await announce('/api/validate', 200_000);
    expect(api).toMatch(/^HTTP\/1\.1 413 /);
    expect(api).toContain('request body is over the limit maxApiBodyBytes=100000');
  });

  it('is read and dropped for a while after its answer, so a client still sending it gets no reset', async () => {
    // A socket destroyed with the body still arriving answers it with a reset, and a client still writing its body
    // (fetch does) could lose the 413 it had not read yet. The server now half-closes and lingers instead.
    const u = new URL(s.url);
    // Half-open, as a client still sending its body is: the server's FIN does not end our side.
    const sock = connect({ port: Number(u.port), host: u.hostname, allowHalfOpen: true });
    let got = '';
    let failure: Error | undefined;
    sock.on('data', (d) => (got += d.toString('latin1')));
    sock.on('error', (err) => (failure = err));
    const ended = new Promise<void>((resolve) => sock.once('end', resolve));
    sock.write(
      `POST /v2/models/extractor/infer HTTP/1.1\r\nHost: ${u.host}\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n`,
    );
    await ended; // the answer, then the server's FIN
    expect(got).toMatch(/^HTTP\/1\.1 413 /);
    // The body keeps coming after the answer: 4 MB in 64 KiB writes, each waited for.
    const chunk = Buffer.alloc(65536, 32);
    for (let i = 0; i < 64 && !failure; i++) {
      await new Promise<void>((resolve) => sock.write(chunk, () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(failure?.message).toBeUndefined();
    sock.destroy();
  });
});
