import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { sharedMemoryObjects } from '../testing/sharedMemoryObjects.ts';
import { grpcFailure } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';

// Triton's system shared memory over gRPC: the RPCs, an input read from a region and an output written to one by
// ModelInfer and by ModelStreamInfer, and the refusals with Triton's codes.

let t: GrpcTestServer;
let off: GrpcTestServer;
beforeAll(async () => {
  [t, off] = await Promise.all([startGrpcTestServer({ allowClientShm: true }), startGrpcTestServer()]);
});
afterAll(async () => {
  await Promise.all([t?.close(), off?.close()]);
  shm.removeAll();
});

const shm = sharedMemoryObjects('grpc-shm');
const object = shm.object;

const F = 256;
const feat = Float32Array.from({ length: F }, (_, i) => Math.cos(i));
const int64 = (n: number) => ({ int64_param: String(n) });
const region = (name: string, offset: number, size: number) => ({
  shared_memory_region: { string_param: name },
  shared_memory_offset: int64(offset),
  shared_memory_byte_size: int64(size),
});

describe('gRPC system shared memory', () => {
  it('registers regions, reads an input from one and writes an output to another, as raw contents answer', async () => {
    const inKey = object('in', Buffer.from(feat.buffer));
    const outKey = object('out', 2048);
    await t.c.call('SystemSharedMemoryRegister', { name: 'in', key: inKey, offset: 0, byte_size: F * 4 });
    await t.c.call('SystemSharedMemoryRegister', { name: 'out', key: outKey, offset: 1024, byte_size: 1024 });
    const listed = await t.c.call('SystemSharedMemoryStatus', {});
    expect(Object.keys(listed.regions).sort()).toEqual(['in', 'out']);
    expect(listed.regions.out).toMatchObject({ name: 'out', key: outKey, offset: '1024', byte_size: '1024' });

    const inline = await t.c.call('ModelInfer', {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, F] }],
      raw_input_contents: [Buffer.from(feat.buffer)],
    });
    const want: Buffer = inline.raw_output_contents[0];
    const r = await t.c.call('ModelInfer', {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, F], parameters: region('in', 0, F * 4) }],
      outputs: [{ name: 'logits', parameters: region('out', 8, 512) }],
    });
    expect(r.outputs.map((o: { name: string; shape: string[] }) => [o.name, o.shape])).toEqual([
      ['logits', inline.outputs[0].shape],
    ]);
    // Its place in raw_output_contents is kept, empty; the data is in the region.
    expect(r.raw_output_contents.map((b: Buffer) => b.byteLength)).toEqual([0]);
    expect(readFileSync(`/dev/shm/${outKey.slice(1)}`).subarray(1024 + 8, 1024 + 8 + want.byteLength)).toEqual(want);

    // The same through ModelStreamInfer.
    writeFileSync(`/dev/shm/${outKey.slice(1)}`, Buffer.alloc(2048));
    const stream = t.c.stream();
    const got = new Promise<{ infer_response: { raw_output_contents: Buffer[] } }>((resolve, reject) => {
      stream.on('data', resolve);
      stream.on('error', reject);
    });
    stream.write({
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, F], parameters: region('in', 0, F * 4) }],
      outputs: [{ name: 'logits', parameters: region('out', 0, 1024) }],
    });
    const m = await got;
    stream.end();
    expect(m.infer_response.raw_output_contents.map((b) => b.byteLength)).toEqual([0]);
    expect(readFileSync(`/dev/shm/${outKey.slice(1)}`).subarray(1024, 1024 + want.byteLength)).toEqual(want);
  });

  it("answers Triton's codes and messages", async () => {
    const key = object('small', 16);
    expect(await grpcFailure(t.c.call('SystemSharedMemoryRegister', { name: 'in', key, byte_size: 8 }))).toEqual({
      code: status.ALREADY_EXISTS,
      details: "shared memory region 'in' already in manager",
    });
    expect(
      await grpcFailure(t.c.call('SystemSharedMemoryRegister', { name: 'x', key, offset: 8, byte_size: 16 })),
    ).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "failed to register shared memory region 'x': invalid args",
    });
    expect(await grpcFailure(t.c.call('SystemSharedMemoryStatus', { name: 'nope' }))).toEqual({
      code: status.NOT_FOUND,
      details: "Unable to find system shared memory region: 'nope'",
    });
    expect(
      await grpcFailure(
        t.c.call('ModelInfer', {
          model_name: 'head',
          inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, F], parameters: region('in', 0, F * 4 + 4) }],
        }),
      ),
    ).toEqual({ code: status.INVALID_ARGUMENT, details: "Invalid offset + byte size for shared memory region: 'in'" });
    expect(
      await grpcFailure(
        t.c.call('ModelInfer', {
          model_name: 'head',
          inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, F], parameters: region('in', 0, F * 4) }],
          outputs: [{ name: 'logits', parameters: region('out', 0, 4) }],
        }),
      ),
    ).toMatchObject({
      code: status.INTERNAL,
      details: expect.stringMatching(
        /^shared memory size specified with the request for output 'logits' \(4 bytes\) should be at least \d+ bytes/,
      ),
    });
    expect(await grpcFailure(t.c.call('CudaSharedMemoryRegister', { name: 'g', byte_size: 8 }))).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "failed to register CUDA shared memory region: 'g', GPUs not supported",
    });
    await t.c.call('SystemSharedMemoryUnregister', {});
    expect((await t.c.call('SystemSharedMemoryStatus', {})).regions).toEqual({});
  });

  it('refuses registering unless the server allows client shared memory', async () => {
    expect(await grpcFailure(off.c.call('SystemSharedMemoryRegister', { name: 'r', key: '/k', byte_size: 8 }))).toEqual(
      {
        code: status.UNIMPLEMENTED,
        details: "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.",
      },
    );
  });
});
