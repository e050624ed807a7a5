import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

/** A graph at the node and edge limits: compiling it takes the compiler 60–250 ms. */
function largestGraph() {
  const nodes = Array.from({ length: 1024 }, (_, i) => ({
    id: `n${i}`,
    position: { x: 0, y: 0 },
    kind: 'op',
    params: { op: 'topk', values: {} },
  }));
  const edges = Array.from({ length: 4096 }, (_, i) => ({
    id: `e${i}`,
    source: `n${i % 1024}`,
    sourcePort: 'out',
    target: `n${(i + 1) % 1024}`,
    targetPort: 'in',
  }));
  return { version: 1, name: 'largest', description: '', maxBatchSize: 0, nodes, edges };
}

/**
 * Sends `path` the largest graph and, the moment the server has read its body (just before the route runs), a
 * `/v2/health/ready` on a connection of its own; resolves with the order in which the two answers came.
 */
async function orderOfAnswers(path: string): Promise<string[]> {
  const order: string[] = [];
  let health: Promise<void> | undefined;
  const onRequest = (req: IncomingMessage) => {
    if (req.url !== path) return;
    req.once('end', () => {
      health = fetch(`${s.url}/v2/health/ready`).then(() => void order.push('health'));
    });
  };
  // Before the app's listener, so the URL is as sent and this 'end' listener runs before the body reader's.
  s.server.prependListener('request', onRequest);
  try {
    const r = await fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ graph: largestGraph() }),
    });
    // Counted when its head arrives: reading its megabytes of body would let the health answer overtake it.
    order.push(`${path} ${r.status}`);
    await r.arrayBuffer();
    await health;
  } finally {
    s.server.off('request', onRequest);
  }
  return order;
}

describe('compiling and exporting a graph', () => {
  it('happen off the main thread: a request that arrives meanwhile is answered first', async () => {
    // On the main thread, the health request could not even connect until the compile was done.
    expect(await orderOfAnswers('/api/compile')).toEqual(['health', '/api/compile 200']);
    expect(await orderOfAnswers('/api/export')).toEqual(['health', '/api/export 422']);
  });

  it('answer as before: the compile result, a node preview, a zip', async () => {
    const listed = (await call(`${s.url}/api/graphs`)).json.graphs as { name: string; errors: number }[];
    const name = listed.find((g) => g.errors === 0)!.name;
    const compiled = await call(`${s.url}/api/compile`, 'POST', { graph: name });
    expect(compiled.status).toBe(200);
    expect(compiled.json.ok).toBe(true);
    expect(compiled.json.files.length).toBeGreaterThan(0);
    const graph = (await call(`${s.url}/api/graphs/${name}`)).json;
    const nodeId = graph.nodes.find((n: { kind: string }) => n.kind === 'model').id;
    const preview = await call(`${s.url}/api/compile`, 'POST', { graph: name, nodeId });
    expect(preview.json.nodeId).toBe(nodeId);
    const zip = await fetch(`${s.url}/api/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ graph: name }),
    });
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    // A zip starts with a local file header.
    expect(Buffer.from(await zip.arrayBuffer()).subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  });
});
