// A saved graph's KServe config is its compilation's: compiled before the server listens (warmGraphs) and once per
// graph document and catalogue, not in every request's turn (200 gRPC ModelConfig requests for a graph, read in one
// turn, compiled it 200 times: HOSTILE.md, sixteenth round).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphDoc } from '@ensemble-studio/core';
import { call, startTestServer } from '../testing/testServer.ts';

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => s?.close());

describe("a saved graph's config", () => {
  it('is compiled, with its helper models, before the server listens', () => {
    const pipe = s.studio.repository.graphs.pipe!;
    expect(s.studio.graphConfigs.get(pipe)?.catalogue).toBe(s.studio.catalogue);
    expect(s.studio.compiledHelpers.get(pipe)?.catalogue).toBe(s.studio.catalogue);
  });

  it('is answered from that compilation, a copy each time; a saved change is compiled again', async () => {
    const pipe = s.studio.repository.graphs.pipe!;
    const compiled = s.studio.graphConfigs.get(pipe)!.result;
    const first = await call(`${s.url}/v2/models/pipe/config`);
    expect(first.json).toMatchObject({ name: 'pipe', platform: 'ensemble' });
    const second = await call(`${s.url}/v2/models/pipe/config`);
    expect(second.json).toEqual(first.json);
    expect(s.studio.graphConfigs.get(pipe)!.result).toBe(compiled);
    const doc = (await call(`${s.url}/api/graphs/pipe`)).json as GraphDoc;
    expect((await call(`${s.url}/api/graphs/pipe`, 'PUT', { graph: { ...doc, description: 'changed' } })).status).toBe(
      200,
    );
    const saved = s.studio.repository.graphs.pipe!;
    expect(saved).not.toBe(pipe);
    expect((await call(`${s.url}/v2/models/pipe/config`)).json).toEqual(first.json);
    expect(s.studio.graphConfigs.get(saved)?.catalogue).toBe(s.studio.catalogue);
  });
});
