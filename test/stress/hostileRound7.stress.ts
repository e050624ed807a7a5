// The seventh independent hostile-input round, as regression cases: gRPC metadata over gRPC's limits, an unload of a
// saved graph's helper model, repository requests with parameters of the wrong type, and load/unload racing
// inference. Each runs against a real `studio serve` with a bystander asking /v2/health/ready from a process of its
// own.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copyExamples, http, spawnStudio } from '../support/server.ts';
import { connectTestClient, grpcFailure } from '../../apps/server/src/testing/grpcTestClient.ts';
import { stubsDescendingFrom } from '../../apps/server/src/testing/processAlive.ts';
import { writePythonModels } from '../../apps/server/src/testing/pythonModels.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(() => {
  const repo = copyExamples({ linkModels: true });
  writePythonModels(repo, ['add_sub']);
  return spawnStudio(repo);
});

// gRPC status codes (this package does not depend on grpc-js).
const [OK, INVALID_ARGUMENT, RESOURCE_EXHAUSTED, UNIMPLEMENTED] = [0, 3, 8, 12];

const post = (path: string, body?: unknown) =>
  http(`${studio.url}${path}`, { method: 'POST', ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const grpcAddress = async () => {
  await expect.poll(() => /grpc listening on (\S+)/.test(studio.output())).toBe(true);
  return /grpc listening on (\S+)/.exec(studio.output())![1]!;
};

/** The Python stubs descending from the server (through its stub spawner). */
const stubs = () => stubsDescendingFrom(studio.child.pid!);

/** The number of the server's stubs once it has not changed for a second (a retired stub exits meanwhile). */
async function settledStubs(): Promise<number> {
  let last = -1;
  let same = 0;
  for (const end = Date.now() + 20_000; Date.now() < end && same < 5;) {
    const now = stubs().length;
    same = now === last ? same + 1 : 0;
    last = now;
    await new Promise((r) => setTimeout(r, 200));
  }
  return last;
}

const rssMb = () =>
  Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${studio.child.pid}/status`, 'utf8'))![1]) / 1024);

describe('hostile input, seventh round', () => {
  it("gRPC metadata over gRPC's limits is refused with RESOURCE_EXHAUSTED at once, as Triton's server refuses it", async () => {
    const client = connectTestClient(await grpcAddress());
    const live = async (n: number, size: number) => {
      const entries = Array.from({ length: n }, (_, i): [string, string] => [`k${i}`, 'x'.repeat(size)]);
      try {
        await client.callWithMetadata('ServerLive', {}, entries);
        return { code: OK, details: '' };
      } catch (err) {
        return { code: (err as { code: number }).code, details: (err as { details: string }).details };
      }
    };
    const refused = {
      code: RESOURCE_EXHAUSTED,
      details: expect.stringMatching(/^received metadata size exceeds hard limit \(\d+ vs\. 16384\)$/),
    };
    expect(await probe('gRPC metadata: one 20 KB value', () => live(1, 20_000))).toEqual(refused);
    expect(await probe('gRPC metadata: 400 entries of 50 bytes', () => live(400, 50))).toEqual(refused);
    expect((await probe('gRPC metadata: 15,000 entries', () => live(15_000, 1))).code).toBe(RESOURCE_EXHAUSTED);
    expect(await probe('gRPC metadata: 16 values of 10 KB', () => live(16, 10_000))).toEqual(refused);
    expect(await live(4, 100)).toEqual({ code: OK, details: '' });
    client.close();
  });

  it("an unload of a saved graph's helper model ends its python3 stub", async () => {
    const before = stubs();
    const fanout = () =>
      post('/v2/models/ocr_fanout/infer', {
        inputs: [{ name: 'in', datatype: 'FP32', shape: [1, 3, 48, 8], data: new Array(3 * 48 * 8).fill(0.5) }],
      });
    expect((await fanout()).status).toBe(200);
    const started = stubs().filter((p) => !before.includes(p));
    expect(started.length).toBeGreaterThan(0);
    const unload = await probe('unload of helper model ocr_fanout', () =>
      post('/v2/repository/models/ocr_fanout/unload'),
    );
    expect(unload.status).toBe(200);
    await expect.poll(() => stubs().filter((p) => started.includes(p)), { timeout: 20_000, interval: 100 }).toEqual([]);
    expect((await post('/v2/repository/models/ocr_fanout/load')).status).toBe(200);
    expect((await fanout()).status).toBe(200);
  }, 60_000);

  it('repository requests with parameters of the wrong type are refused as Triton refuses them', async () => {
    const index = await probe('index with ready "yes"', () => post('/v2/repository/index', { ready: 'yes' }));
    expect([index.status, index.json]).toEqual([400, { error: "Invalid value for 'ready': expected a boolean" }]);
    const load = await probe('load with a non-string parameter', () =>
      post('/v2/repository/models/head_a/load', { parameters: { config: 5 } }),
    );
    expect([load.status, load.json]).toEqual([500, { error: 'attempt to access JSON non-string as string' }]);
    const c = connectTestClient(await grpcAddress());
    const unknown = await grpcFailure(
      c.call('RepositoryModelLoad', { model_name: 'head_a', parameters: { unload_dependents: { bool_param: true } } }),
    );
    const named = await grpcFailure(c.call('RepositoryIndex', { repository_name: 'elsewhere' }));
    c.close();
    expect(unknown).toEqual({
      code: INVALID_ARGUMENT,
      details: "unrecognized load parameter 'unload_dependents'.",
    });
    expect(named).toEqual({ code: UNIMPLEMENTED, details: "'repository_name' specification is not supported" });
  });

  it('loads, unloads and inference racing leave the stubs and memory as they were', async () => {
    const addSub = () =>
      post('/v2/models/add_sub/infer', {
        inputs: [
          { name: 'INPUT0', datatype: 'FP32', shape: [4], data: [1, 2, 3, 4] },
          { name: 'INPUT1', datatype: 'FP32', shape: [4], data: [1, 1, 1, 1] },
        ],
      });
    // A load ends the graphs' exported repositories (and their stubs): count from after one.
    expect((await post('/v2/repository/models/add_sub/load')).status).toBe(200);
    expect((await addSub()).status).toBe(200);
    const before = { stubs: await settledStubs(), rss: rssMb() };
    await probe('20 rounds of load, unload and inference racing', async () => {
      for (let i = 0; i < 20; i++)
        await Promise.all([
          post('/v2/repository/models/add_sub/load'),
          post('/v2/repository/models/add_sub/unload'),
          addSub(),
          post('/v2/repository/models/head_a/unload'),
          post('/v2/repository/models/head_a/load'),
        ]);
    });
    expect((await post('/v2/repository/models/add_sub/load')).status).toBe(200);
    expect((await post('/v2/repository/models/head_a/load')).status).toBe(200);
    expect((await addSub()).status).toBe(200);
    expect(await settledStubs()).toBe(before.stubs);
    expect(rssMb() - before.rss).toBeLessThan(200);
  }, 120_000);
});
