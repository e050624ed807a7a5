// The repository extension's requests checked as Triton's servers check them, over HTTP and gRPC against a real
// server: a parameter of the wrong type or an unknown one is refused (it was taken, or ignored), and so is a request
// naming a repository (Triton serves one, unnamed).
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcFailure } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { call } from '../testing/testServer.ts';

let t: GrpcTestServer;
beforeAll(async () => {
  t = await startGrpcTestServer();
}, 60_000);
afterAll(() => t?.close());

const http = (path: string, body: unknown) => call(`${t.s.url}${path}`, 'POST', body);
const failure = (method: string, request: unknown) => grpcFailure(t.c.call(method, request));

describe('HTTP repository requests', () => {
  it("refuses an index whose 'ready' is not a boolean", async () => {
    for (const ready of ['yes', 1, null, {}]) {
      const r = await http('/v2/repository/index', { ready });
      expect([r.status, r.json]).toEqual([400, { error: "Invalid value for 'ready': expected a boolean" }]);
    }
    expect((await http('/v2/repository/index', { ready: true })).status).toBe(200);
  });

  it('refuses a load parameter that is not a string, or not one Triton knows, with its words and status', async () => {
    const load = (parameters: unknown) => http('/v2/repository/models/head/load', { parameters });
    for (const parameters of [
      { config: 5 },
      JSON.parse('{"__proto__": {"config": "{}"}}'),
      { 'file:1/model.onnx': ['AAAA'] },
    ]) {
      const r = await load(parameters);
      expect([r.status, r.json]).toEqual([500, { error: 'attempt to access JSON non-string as string' }]);
    }
    for (const parameters of [{ unload_dependents: 'yes' }, JSON.parse('{"__proto__": "x"}')]) {
      const r = await load(parameters);
      expect([r.status, r.json]).toEqual([500, { error: 'unexpected error on creating Triton parameter' }]);
    }
    const notObject = await load([]);
    expect([notObject.status, notObject.json]).toEqual([500, { error: 'attempt to get members for non-object' }]);
    expect((await load({})).status).toBe(200);
  });

  it('takes a body that is JSON but not an object as asking for nothing, as Triton does', async () => {
    for (const body of ['[]', '1', '"x"', 'null']) {
      expect((await http('/v2/repository/index', body)).status).toBe(200);
      expect((await http('/v2/repository/models/head/load', body)).status).toBe(200);
    }
  });
});

describe('gRPC repository requests', () => {
  it('refuses a request naming a repository', async () => {
    const unsupported = { code: status.UNIMPLEMENTED, details: "'repository_name' specification is not supported" };
    expect(await failure('RepositoryIndex', { repository_name: 'other' })).toEqual(unsupported);
    expect(await failure('RepositoryModelLoad', { repository_name: 'other', model_name: 'head' })).toEqual(unsupported);
    expect(await failure('RepositoryModelUnload', { repository_name: 'other', model_name: 'head' })).toEqual(
      unsupported,
    );
  });

  it('refuses load parameters of the wrong type or unknown, and an unload_dependents that is not a bool', async () => {
    const load = (parameters: unknown) => failure('RepositoryModelLoad', { model_name: 'head', parameters });
    expect(await load({ config: { int64_param: 5 } })).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "invalid value type for load parameter 'config', expected string_param.",
    });
    expect(await load({ 'file:1/model.onnx': { string_param: 'AAAA' } })).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "invalid value type for load parameter 'file:1/model.onnx', expected bytes_param.",
    });
    expect(await load({ unload_dependents: { bool_param: true } })).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "unrecognized load parameter 'unload_dependents'.",
    });
    expect(
      await failure('RepositoryModelUnload', {
        model_name: 'head',
        parameters: { unload_dependents: { string_param: 'yes' } },
      }),
    ).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "invalid value type for 'unload_dependents' parameter, expected bool_param.",
    });
    // Still served: the refused unload did nothing.
    expect(await t.c.call('ModelReady', { name: 'head', version: '' })).toEqual({ ready: true });
  });
});
