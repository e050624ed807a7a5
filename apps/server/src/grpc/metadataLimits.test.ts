// Metadata over gRPC's limits is answered as Triton's gRPC server (C-core, default limits) answers it:
// RESOURCE_EXHAUSTED at once, the connection kept; Node's HTTP/2 had refused it on its own terms.
import { credentials, Metadata, status, type Client, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { inferenceService } from './loadService.ts';
import { METADATA_HARD_LIMIT, METADATA_SOFT_LIMIT, metadataRefusal } from './metadataLimits.ts';

let t: GrpcTestServer;
let client: Client & Record<string, any>;
beforeAll(async () => {
  t = await startGrpcTestServer();
  client = new (inferenceService().client)(t.g.address, credentials.createInsecure()) as Client & Record<string, any>;
});
afterAll(async () => {
  client?.close();
  await t?.close();
});

/** ServerLive with `n` metadata entries of `size` bytes each: its answer, or its failure's code and details. */
function live(n: number, size: number, char = 'x') {
  const md = new Metadata();
  for (let i = 0; i < n; i++) md.set(`k${i}`, char.repeat(size));
  return new Promise<{ code: number; details: string }>((resolve) => {
    client.ServerLive({}, md, { deadline: Date.now() + 10_000 }, (err: ServiceError | null) =>
      resolve(err ? { code: err.code, details: err.details } : { code: status.OK, details: '' }),
    );
  });
}

const overHardLimit = {
  code: status.RESOURCE_EXHAUSTED,
  details: expect.stringMatching(/^received metadata size exceeds hard limit \(\d+ vs\. 16384\)$/),
};

describe('gRPC metadata limits', () => {
  it('takes metadata under the soft limit', async () => {
    expect(await live(1, 4000)).toEqual({ code: status.OK, details: '' });
    expect(await live(100, 20)).toEqual({ code: status.OK, details: '' });
  });

  it('refuses one value over the hard limit', async () => {
    expect(await live(1, 20_000)).toEqual(overHardLimit);
  });

  it('refuses 400 entries of 50 bytes (over the 128 entries Node took)', async () => {
    expect(await live(400, 50)).toEqual(overHardLimit);
  });

  it('refuses 5,000 small entries with RESOURCE_EXHAUSTED, before building them', async () => {
    expect((await live(5000, 10)).code).toBe(status.RESOURCE_EXHAUSTED);
  });

  it('refuses 160 KB of metadata in 16 values (a header block of 9 frames at the default frame size)', async () => {
    expect(await live(16, 10_000)).toEqual(overHardLimit);
  });

  it('refuses one value longer than 64 KiB as sent (nghttp2 had ended the connection) and serves the next call', async () => {
    // '#' has a 12-bit Huffman code, so the value is sent as it is. 60,000 bytes reach grpc-js as they are, 70,000
    // as a mark that counts the field's size: the two answers differ by the 10,000 bytes.
    const under = await live(1, 60_000, '#');
    expect(under).toEqual(overHardLimit);
    const n = Number(/\((\d+) vs/.exec(under.details)![1]);
    expect(await live(1, 70_000, '#')).toEqual({
      code: status.RESOURCE_EXHAUSTED,
      details: `received metadata size exceeds hard limit (${n + 10_000} vs. 16384)`,
    });
    expect(await live(1, 100)).toEqual({ code: status.OK, details: '' });
  });

  it("takes a client's header named like the mark as an ordinary header", async () => {
    const md = new Metadata();
    md.set('x-studio-oversized-field', '700000');
    const answer = await new Promise<number>((resolve) =>
      client.ServerLive({}, md, (err: ServiceError | null) => resolve(err ? err.code : status.OK)),
    );
    expect(answer).toBe(status.OK);
  });

  it('goes on serving the same connection after refusing', async () => {
    expect(await live(1, 20_000)).toEqual(overHardLimit);
    expect(await live(1, 100)).toEqual({ code: status.OK, details: '' });
  });
});

describe('metadataRefusal', () => {
  it('refuses between the limits with a chance that grows across the band, and always above it', () => {
    const mid = (METADATA_SOFT_LIMIT + METADATA_HARD_LIMIT) / 2;
    expect(metadataRefusal(METADATA_SOFT_LIMIT, () => 0)).toBeUndefined();
    expect(metadataRefusal(mid, () => 0.49)).toBe(
      `received metadata size exceeds soft limit (${mid} vs. 8192), rejecting requests with some random probability`,
    );
    expect(metadataRefusal(mid, () => 0.51)).toBeUndefined();
    expect(metadataRefusal(METADATA_HARD_LIMIT + 1, () => 0.99)).toBe(
      'received metadata size exceeds hard limit (16385 vs. 16384)',
    );
  });
});
