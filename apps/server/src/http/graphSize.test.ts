import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import { connect } from '../testing/wsTestClient.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile({ limits: { maxApiBodyBytes: 300_000 } });

/** `pipe` with `n` more extractor nodes fed from its input (validation and compile grow faster than n). */
async function bigGraph(name: string, n: number): Promise<GraphDoc> {
  const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
  const nodes = [...pipe.nodes];
  const edges = [...pipe.edges];
  for (let i = 0; i < n; i++) {
    nodes.push({
      id: `e${i}`,
      kind: 'model',
      position: { x: i, y: 0 },
      params: { model: 'extractor' },
    } as GraphDoc['nodes'][number]);
    edges.push({ id: `ed${i}`, source: 'in:x', sourcePort: 'out', target: `e${i}`, targetPort: 'x' });
  }
  return { ...pipe, name, nodes, edges };
}

describe('graphs too large to validate or compile quickly are refused before any work', () => {
  it.each(['validate', 'compile', 'export'])('/api/%s', async (route) => {
    const r = await call(`${s.url}/api/${route}`, 'POST', { graph: await bigGraph('huge', 1100) });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toBe("graph 'huge' has 1104 nodes: over the limit maxGraphNodes=1024");
  });

  it('saving one writes nothing', async () => {
    const r = await call(`${s.url}/api/graphs/huge`, 'PUT', { graph: await bigGraph('huge', 1100) });
    expect([r.status, r.json.error.code]).toEqual([400, 'limit']);
    expect((await call(`${s.url}/api/graphs/huge`)).status).toBe(404);
  });

  it('running one over WebSocket', async () => {
    const c = await connect(s.url);
    c.send({ type: 'run.start', requestId: 'big', graph: await bigGraph('huge', 1100), inputs: {} });
    expect(await c.next('error')).toMatchObject({
      ref: 'big',
      error: { code: 'limit', message: expect.stringMatching(/maxGraphNodes=1024/) },
    });
    await c.close();
  });

  it('an /api body over maxApiBodyBytes is refused with 413 naming that limit', async () => {
    const r = await call(`${s.url}/api/validate`, 'POST', { graph: 'x'.repeat(400_000) });
    expect(r.status).toBe(413);
    expect(r.json.error.message).toBe('request body is over the limit maxApiBodyBytes=300000');
  });

  it('an /api body opening more objects and arrays than a graph within the limits holds is refused unparsed', async () => {
    const deep = `{"graph":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const r = await call(`${s.url}/api/validate`, 'POST', deep);
    expect([r.status, r.json.error.code]).toEqual([413, 'too-large']);
    expect(r.json.error.message).toBe(
      'request body opens more than 73728 JSON objects and arrays, more than a graph within the limits maxGraphNodes=1024 and maxGraphEdges=4096 holds',
    );
  });

  it('graphs within the limits are served as before', async () => {
    expect((await call(`${s.url}/api/validate`, 'POST', { graph: await bigGraph('fine', 20) })).status).toBe(200);
  });
});

describe('a huge inline graph in a large WebSocket message', () => {
  it('is refused where it is parsed, naming the limit', async () => {
    const c = await connect(s.url);
    const g = await bigGraph('huge', 20_000);
    const text = JSON.stringify({ type: 'run.start', requestId: 'huge', graph: g, inputs: {} });
    expect(text.length).toBeGreaterThan(1024 * 1024);
    c.send(text);
    expect(await c.next('error')).toMatchObject({
      ref: 'huge',
      error: { code: 'limit', message: 'inline graph has 20004 nodes: over the limit maxGraphNodes=1024' },
    });
    await c.close();
  });
});

describe('a saved graph whose studio.json is over the size limit', () => {
  it('says why wherever it is asked for, as a model that failed to load does, and can still be deleted', async () => {
    // It answered 404 everywhere, as if there were no such graph.
    const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
    mkdirSync(join(s.repo, 'oversized'));
    const file = join(s.repo, 'oversized', 'studio.json');
    writeFileSync(file, JSON.stringify({ ...pipe, name: 'oversized', description: 'x'.repeat(9 << 20) }));
    const why = `studio.json is ${statSync(file).size} bytes, over the limit of 8388608 for a saved graph`;
    const load = await call(`${s.url}/v2/repository/models/oversized/load`, 'POST');
    expect([load.status, load.json.error]).toEqual([
      400,
      `load failed for model 'oversized': model 'oversized' failed to load: ${why}`,
    ]);
    const api = await call(`${s.url}/api/graphs/oversized`);
    expect([api.status, api.json.error]).toEqual([
      422,
      { code: 'graph-load', message: `graph "oversized" did not load: ${why}` },
    ]);
    const index = (await call(`${s.url}/v2/repository/index`, 'POST')).json as { name: string }[];
    expect(index.find((m) => m.name === 'oversized')).toMatchObject({
      name: 'oversized',
      state: 'UNAVAILABLE',
      reason: `model 'oversized' failed to load: ${why}`,
    });
    expect((await call(`${s.url}/v2/models/oversized/ready`)).status).toBe(400);
    const catalogue = (await call(`${s.url}/api/catalogue`)).json as { problems: { message: string }[] };
    expect(catalogue.problems.map((p) => p.message)).toContain(`oversized: ${why}`);
    expect((await call(`${s.url}/api/graphs/oversized`, 'DELETE')).status).toBe(204);
    expect((await call(`${s.url}/api/graphs/oversized`)).status).toBe(404);
  });
});
