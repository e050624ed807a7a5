// Large RepositoryModelLoad / RepositoryModelUnload messages (the thirteenth hostile round: 300,000 `file:`
// parameters, 5 MB, were decoded by grpc-js on the main thread and held every client 3.5-5 s). They are now left as
// bytes and read in the body worker, with the answers a small message gets.
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRequest, grpcFailure } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { deferLargeRequests, INLINE_DECODE_BYTES, UndecodedRequest } from './deferredRequests.ts';
import { inferenceService } from './loadService.ts';
import { readRepositoryMessage } from './repositoryMessages.ts';

/** `n` `file:` parameters, as bytes_params. */
const files = (n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`file:${i}`, { bytes_param: Buffer.from('x') }]));
const REFUSAL =
  "load of 'head' with file:0, file:1, file:2, file:3, file:4, file:5, file:6, file:7 and 19992 more is not supported: the studio loads models from its repository on disk (edit the files, then load)";

describe('deferLargeRequests', () => {
  it('leaves a repository load or unload over INLINE_DECODE_BYTES as bytes, and decodes a small one', () => {
    const service = deferLargeRequests(inferenceService().service);
    for (const method of ['RepositoryModelLoad', 'RepositoryModelUnload']) {
      const large = encodeRequest(method, { model_name: 'head', parameters: files(20_000) });
      expect(large.byteLength).toBeGreaterThan(INLINE_DECODE_BYTES);
      expect(service[method]!.requestDeserialize(large)).toBeInstanceOf(UndecodedRequest);
      const small = encodeRequest(method, { model_name: 'head' });
      expect(service[method]!.requestDeserialize(small)).toMatchObject({ model_name: 'head' });
    }
  });
});

describe('readRepositoryMessage', () => {
  it("runs the handler's checks in its order and keeps only what the handler uses", () => {
    const load = (request: unknown) =>
      readRepositoryMessage('RepositoryModelLoad', encodeRequest('RepositoryModelLoad', request));
    expect(load({ model_name: 'head', parameters: files(20_000) })).toEqual({
      refusal: { code: status.INVALID_ARGUMENT, details: REFUSAL },
    });
    expect(load({ repository_name: 'r', model_name: 'head', parameters: { nope: { bool_param: true } } })).toEqual({
      refusal: { code: status.UNIMPLEMENTED, details: "'repository_name' specification is not supported" },
    });
    expect(load({ model_name: 'head', parameters: { nope: { bool_param: true } } })).toEqual({
      refusal: { code: status.INVALID_ARGUMENT, details: "unrecognized load parameter 'nope'." },
    });
    expect(load({ model_name: 'head' })).toEqual({ request: { model_name: 'head' } });
    const unload = (request: unknown) =>
      readRepositoryMessage('RepositoryModelUnload', encodeRequest('RepositoryModelUnload', request));
    expect(unload({ model_name: 'm', parameters: { ...files(10), unload_dependents: { bool_param: true } } })).toEqual({
      request: {
        model_name: 'm',
        parameters: { unload_dependents: { parameter_choice: 'bool_param', bool_param: true } },
      },
    });
    expect(unload({ model_name: 'm', parameters: { unload_dependents: { int64_param: 1 } } })).toMatchObject({
      refusal: { code: status.INVALID_ARGUMENT },
    });
  });
});

describe('large repository messages on a running server', () => {
  let t: GrpcTestServer;
  beforeAll(async () => {
    t = await startGrpcTestServer();
  });
  afterAll(() => t?.close());

  it('a load of 20,000 overrides is refused as a small one is, naming eight', async () => {
    expect(
      await grpcFailure(t.c.call('RepositoryModelLoad', { model_name: 'head', parameters: files(20_000) })),
    ).toEqual({ code: status.INVALID_ARGUMENT, details: REFUSAL });
    expect(await grpcFailure(t.c.call('RepositoryModelLoad', { model_name: 'head', parameters: files(1) }))).toEqual({
      code: status.INVALID_ARGUMENT,
      details:
        "load of 'head' with file:0 is not supported: the studio loads models from its repository on disk (edit the files, then load)",
    });
  });

  it('an unload padded with 20,000 parameters unloads, and a load brings the model back', async () => {
    const parameters = { ...files(20_000), unload_dependents: { bool_param: false } };
    expect(await t.c.call('RepositoryModelUnload', { model_name: 'head', parameters })).toEqual({});
    expect(await t.c.call('ModelReady', { name: 'head' })).toEqual({ ready: false });
    expect(await t.c.call('RepositoryModelLoad', { model_name: 'head' })).toEqual({});
    expect(await t.c.call('ModelReady', { name: 'head' })).toEqual({ ready: true });
  });
});
