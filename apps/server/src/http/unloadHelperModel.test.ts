// Unloading a model a saved graph's exported repository runs (the generated helper of one of its steps) ends its
// instances there too, as Triton's unload ends them: its python3 stub exits once the runs on it finish, not at the
// next load or the shutdown. A load serves it again from a new stub.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forkGraph } from '../testing/forkGraph.ts';
import { stubsDescendingFrom } from '../testing/processAlive.ts';
import { removeTempDir } from '../testing/tempDir.ts';
import { call, startTestServer } from '../testing/testServer.ts';

// The stub needs numpy: Debian's python3 has it (the one on PATH may not).
process.env.STUDIO_PYTHON ||= '/usr/bin/python3';

const stubs = () => stubsDescendingFrom(process.pid);

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer();
  expect((await call(`${s.url}/api/graphs/fork`, 'PUT', forkGraph('fork'))).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await s?.close();
  if (s) removeTempDir(s.repo);
});

const feat = Array.from({ length: 256 }, (_, i) => i / 256);
const share = () =>
  call(`${s.url}/v2/models/fork_share/infer`, 'POST', {
    inputs: [{ name: 'in', datatype: 'FP32', shape: [1, 256], data: feat }],
  });

describe('unloading a helper model of a saved graph', () => {
  it('ends its python3 stub; a load starts a new one', async () => {
    expect(stubs()).toEqual([]);
    expect((await share()).status).toBe(200);
    const first = stubs();
    expect(first.length).toBeGreaterThan(0);

    expect((await call(`${s.url}/v2/repository/models/fork_share/unload`, 'POST')).status).toBe(200);
    await expect.poll(stubs, { timeout: 20_000, interval: 50 }).toEqual([]);
    expect((await share()).status).toBe(404);

    expect((await call(`${s.url}/v2/repository/models/fork_share/load`, 'POST')).status).toBe(200);
    const again = await share();
    expect([again.status, again.json.outputs?.[0].data.length]).toEqual([200, 256]);
    const second = stubs();
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((p) => first.includes(p))).toEqual([]);
  }, 60_000);
});
