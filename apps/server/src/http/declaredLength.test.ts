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
});
