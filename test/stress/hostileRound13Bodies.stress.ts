// The thirteenth independent hostile-input round, as regression cases against a real `studio serve` with a bystander
// asking /v2/health/ready from a process of its own: repository requests of megabytes, over HTTP sent in chunks
// (parsed on the main thread before: 30 MB held every client 7-8 s) and over gRPC with 300,000 parameters (decoded
// by grpc-js on the main thread: 3.5-5 s).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectTestClient, grpcFailure } from '../../apps/server/src/testing/grpcTestClient.ts';
import { postChunked } from '../../apps/server/src/testing/postChunked.ts';
import { http, spawnStudio } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { probedStudio } from './hostileProbe.ts';

let repo = '';
const { studio, probe } = probedStudio(() => {
  repo = tempDir('studio-round13-');
  // A model that fails to load, so that `ready: true` has something to leave out.
  mkdirSync(join(repo, 'broken'));
  writeFileSync(join(repo, 'broken', 'config.pbtxt'), 'name: "broken"\nbackend: "python"\nmax_batch_size: -\n');
  return spawnStudio(repo);
});

describe('hostile input, thirteenth round', () => {
  it('a 30 MB repository index request sent in chunks is parsed without holding other clients', async () => {
    expect((await http(`${studio.url}/v2/repository/index`, { method: 'POST' })).json).toMatchObject([
      { name: 'broken', state: 'UNAVAILABLE' },
    ]);
    const body = Buffer.from(`{"ready":true,"pad":[${'1,'.repeat(15_000_000)}1]}`);
    const r = await probe('index: 30 MB of numbers in chunks', () =>
      postChunked(`${studio.url}/v2/repository/index`, body, Math.ceil(body.length / (1 << 16))),
    );
    expect([r.status, JSON.parse(r.text)]).toEqual([200, []]);
  });

  it('a gRPC repository load of 300,000 parameters is decoded without holding other clients', async () => {
    const client = connectTestClient(/grpc listening on (\S+)/.exec(studio.output())![1]!);
    try {
      const parameters = Object.fromEntries(
        Array.from({ length: 300_000 }, (_, i) => [`file:${i}`, { bytes_param: Buffer.from('x') }]),
      );
      const r = await probe('gRPC load: 300,000 parameters', () =>
        grpcFailure(client.call('RepositoryModelLoad', { model_name: 'broken', parameters })),
      );
      expect(r).toEqual({
        code: 3, // INVALID_ARGUMENT
        details:
          "load of 'broken' with file:0, file:1, file:2, file:3, file:4, file:5, file:6, file:7 and 299992 more is not supported: the studio loads models from its repository on disk (edit the files, then load)",
      });
    } finally {
      client.close();
    }
  });
});
