import { describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import { connect } from '../testing/wsTestClient.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

/** `pipe` with a copy router of `count` outputs added beside it. */
async function withRouter(name: string, count: number): Promise<GraphDoc> {
  const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
  return {
    ...pipe,
    name,
    nodes: [...pipe.nodes, { id: 'fan', kind: 'router', position: { x: 0, y: 0 }, params: { mode: 'copy', count } }],
  } as GraphDoc;
}

describe('router fan-out is capped by maxRouterOutputs', () => {
  it('an inline graph over WebSocket is refused before it runs', async () => {
    const c = await connect(s.url);
    c.send({
      type: 'run.start',
      requestId: 'fan',
      graph: await withRouter('fanout', 2000),
      inputs: { x: { datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0) } },
    });
    expect(await c.next('error')).toMatchObject({
      ref: 'fan',
      error: {
        code: 'limit',
        message: "router 'fan' of graph 'fanout' has 2000 outputs: over the limit maxRouterOutputs=64",
      },
    });
    await c.close();
  });

  it('such a graph cannot be saved, and a router within the limit can be saved and run', async () => {
    const put = await call(`${s.url}/api/graphs/fanout`, 'PUT', { graph: await withRouter('fanout', 2000) });
    expect([put.status, put.json.error.code]).toEqual([400, 'limit']);
    expect(put.json.error.message).toMatch(/maxRouterOutputs=64/);
    expect((await call(`${s.url}/v2/models/fanout/infer`, 'POST', {})).status).toBe(404);
    const x = { inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: new Array(64).fill(0) }] };
    expect((await call(`${s.url}/api/graphs/small`, 'PUT', { graph: await withRouter('small', 2) })).status).toBe(200);
    expect((await call(`${s.url}/v2/models/small/infer`, 'POST', x)).json.error ?? '').not.toMatch(/maxRouterOutputs/);
  });
});
