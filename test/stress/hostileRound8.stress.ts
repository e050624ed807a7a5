// The eighth independent hostile-input round, as regression cases: Python models that misuse decoupled senders
// and BLS calls that form a cycle. Each runs against a real `studio serve` with a bystander asking
// /v2/health/ready from a process of its own.
import { describe, expect, it } from 'vitest';
import { writeBlsCycle } from '../../apps/server/src/testing/blsCycleModels.ts';
import { writeFinishesPrevious } from '../../apps/server/src/testing/finishesPreviousModel.ts';
import { sseEvents } from '../../apps/server/src/testing/sseEvents.ts';
import { copyExamples, http, spawnStudio } from '../support/server.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(() => {
  const repo = copyExamples({ linkModels: true });
  writeFinishesPrevious(repo, 'x');
  writeBlsCycle(repo);
  return spawnStudio(repo);
});

const inferBody = (x: number) => JSON.stringify({ inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [x] }] });
const infer = (model: string, x: number) =>
  http(`${studio.url}/v2/models/${model}/infer`, { method: 'POST', body: inferBody(x) });
const pidOf = async (model: string) => {
  const r = await infer(model, -1);
  expect(r.status).toBe(200);
  return (r.json as { outputs: { data: number[] }[] }).outputs[0]!.data[0];
};

/** The `Y` of each event of a `generate_stream`, as they arrive; `first` resolves with the first one. */
function streamed(x: number) {
  const ys: number[] = [];
  let firstSeen: () => void = () => {};
  const first = new Promise<void>((r) => (firstSeen = r));
  const done = fetch(`${studio.url}/v2/models/finishes_previous/generate_stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ X: [x] }),
  }).then(async (res) => {
    for await (const event of sseEvents<{ Y: number }>(res)) {
      ys.push(Number(event.Y));
      firstSeen();
    }
    return res.status;
  });
  return { ys, first, done };
}

describe('hostile input, eighth round', () => {
  it('a decoupled model takes its next request once execute returns, which may end an earlier request', async () => {
    const earlier = streamed(1);
    await earlier.first;
    const later = await probe('a decoupled request ended by a later execute', async () => {
      const s = streamed(7);
      return { status: await s.done, ys: s.ys };
    });
    expect(later).toEqual({ status: 200, ys: [7] });
    expect(await earlier.done).toBe(200);
    expect(earlier.ys).toEqual([1, 700]);
  }, 60_000);

  it('a BLS cycle ends with the client that started it; its models then serve from the processes they had', async () => {
    const before = [await pidOf('ping'), await pidOf('pong')];
    await probe('a BLS cycle between two one-instance models, abandoned by its client', async () => {
      const abort = new AbortController();
      const cycle = fetch(`${studio.url}/v2/models/ping/infer`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: inferBody(1),
        signal: abort.signal,
      }).catch((err: unknown) => err);
      await new Promise((r) => setTimeout(r, 500));
      abort.abort();
      await cycle;
      // Past the grace period after which a cancelled execute that never returns has its process killed.
      await new Promise((r) => setTimeout(r, 3000));
    });
    expect([await pidOf('ping'), await pidOf('pong')]).toEqual(before);
    await new Promise((r) => setTimeout(r, 3000));
    expect([await pidOf('ping'), await pidOf('pong')]).toEqual(before);
  }, 60_000);
});
