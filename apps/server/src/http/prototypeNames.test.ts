import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import { connect } from '../testing/wsTestClient.ts';
import { call, startTestServer } from '../testing/testServer.ts';

// Names every plain object answers to: a registry keyed by user text must treat them as any unknown name.
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
];

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
  if (s) rmSync(s.repo, { recursive: true, force: true });
});

describe('names that are keys of Object.prototype', () => {
  it.each(PROTOTYPE_NAMES)('KServe: %s is an unknown model on every route', async (name) => {
    for (const path of ['', '/config']) {
      const r = await call(`${s.url}/v2/models/${name}${path}`);
      expect(r.status, `GET /v2/models/${name}${path}`).toBe(404);
      expect(r.json.error).toMatch(/unknown model/);
    }
    expect((await call(`${s.url}/v2/models/${name}/ready`)).status).toBe(400);
    for (const path of ['/infer', '/generate']) {
      const r = await call(`${s.url}/v2/models/${name}${path}`, 'POST', { inputs: [] });
      expect(r.status, `POST /v2/models/${name}${path}`).toBe(404);
    }
  });

  it.each(PROTOTYPE_NAMES)(
    'API: %s is an unknown graph for validate, compile, export, get and delete',
    async (name) => {
      for (const route of ['validate', 'compile', 'export']) {
        const r = await call(`${s.url}/api/${route}`, 'POST', { graph: name });
        expect(r.status, `POST /api/${route} ${name}`).toBe(404);
        expect(r.json.error.code).toBe('unknown-graph');
      }
      expect((await call(`${s.url}/api/graphs/${name}`)).status).toBe(404);
      expect((await call(`${s.url}/api/graphs/${name}`, 'DELETE')).status).toBe(404);
    },
  );

  it('WebSocket run.start on graph "constructor" is an unknown graph, not an internal error', async () => {
    const ws = await connect(s.url);
    try {
      ws.send({ type: 'run.start', requestId: 'r1', graph: 'constructor', inputs: {} });
      expect(await ws.next('error')).toMatchObject({ ref: 'r1', error: { code: 'unknown-graph' } });
    } finally {
      await ws.close();
    }
  });

  it.each(['__proto__', 'hasOwnProperty'])(
    'a graph saved as "%s" is listed, served and deleted like any other, and replaces no prototype',
    async (name) => {
      const pipe = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
      const put = await call(`${s.url}/api/graphs/${name}`, 'PUT', { graph: { ...pipe, name } });
      expect(put.status).toBe(200);
      expect((await call(`${s.url}/api/graphs`)).json.graphs.map((g: { name: string }) => g.name)).toContain(name);
      expect((await call(`${s.url}/api/graphs/${name}`)).json.name).toBe(name);
      expect((await call(`${s.url}/v2/models/${name}`)).json.platform).toBe('ensemble');
      // the registry still answers other names with what they are, not with the saved graph
      expect((await call(`${s.url}/api/graphs/nodes`)).status).toBe(404);
      expect((await call(`${s.url}/api/graphs/${name}`, 'DELETE')).status).toBe(204);
      expect(existsSync(join(s.repo, name, 'studio.json'))).toBe(false);
      expect((await call(`${s.url}/api/graphs/${name}`)).status).toBe(404);
      expect((await call(`${s.url}/v2/models/${name}`)).status).toBe(404);
    },
  );

  it('an infer input named "__proto__" is an unexpected input, not the prototype of the inputs', async () => {
    const r = await call(`${s.url}/v2/models/head/infer`, 'POST', {
      inputs: [{ name: '__proto__', datatype: 'FP32', shape: [1, 256], data: new Array(256).fill(0) }],
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/unexpected inference input '__proto__'/);
  });
});
