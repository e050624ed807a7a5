import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { sharedMemoryObjects } from '../testing/sharedMemoryObjects.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

// Triton's system shared memory extension over HTTP, against objects made under /dev/shm as a client's
// `shm_open` makes them: inputs read from a region, outputs written to one, and Triton's checks and messages.

const s = testServerPerFile({ allowClientShm: true });
const off = testServerPerFile();

const shm = sharedMemoryObjects('shm-test');
const tag = shm.prefix;
const object = shm.object;
afterAll(() => shm.removeAll());

const F = 256;
const feat = Float32Array.from({ length: F }, (_, i) => Math.sin(i));
const register = (base: string, name: string, body: object) =>
  call(`${base}/v2/systemsharedmemory/region/${name}/register`, 'POST', body);
const infer = (base: string, body: object) => call(`${base}/v2/models/head/infer`, 'POST', body);
const featIn = { name: 'feat', datatype: 'FP32', shape: [1, F] };

describe('system shared memory', () => {
  it('reads inputs from a region and writes outputs to one, as the same request sent inline answers', async () => {
    // The input 64 bytes into its object, behind a region that starts 32 bytes in.
    const input = new Uint8Array(64 + F * 4);
    input.set(new Uint8Array(feat.buffer), 64);
    const inKey = object('in', input);
    const outKey = object('out', 4096);
    expect((await register(s.url, 'in', { key: inKey, offset: 32, byte_size: 32 + F * 4 })).status).toBe(200);
    expect((await register(s.url, 'out', { key: outKey, byte_size: 4096 })).status).toBe(200);
    expect((await call(`${s.url}/v2/systemsharedmemory/status`)).json).toEqual([
      { name: 'in', key: inKey, offset: 32, byte_size: 32 + F * 4 },
      { name: 'out', key: outKey, offset: 0, byte_size: 4096 },
    ]);
    expect((await call(`${s.url}/v2/systemsharedmemory/region/out/status`)).json).toEqual([
      { name: 'out', key: outKey, offset: 0, byte_size: 4096 },
    ]);

    const inline = await infer(s.url, { inputs: [{ ...featIn, data: [...feat] }] });
    expect(inline.status).toBe(200);
    const logits = inline.json.outputs[0] as { shape: number[]; data: number[] };

    const r = await infer(s.url, {
      inputs: [
        {
          ...featIn,
          parameters: { shared_memory_region: 'in', shared_memory_offset: 32, shared_memory_byte_size: F * 4 },
        },
      ],
      outputs: [
        {
          name: 'logits',
          parameters: { shared_memory_region: 'out', shared_memory_offset: 16, shared_memory_byte_size: 1024 },
        },
      ],
    });
    expect(r.status).toBe(200);
    // The output is in the region: the response gives its datatype and shape only.
    expect(r.json.outputs).toEqual([{ name: 'logits', datatype: 'FP32', shape: logits.shape }]);
    const written = readFileSync(`/dev/shm/${outKey.slice(1)}`);
    const got = new Float32Array(
      written.buffer.slice(written.byteOffset + 16, written.byteOffset + 16 + logits.data.length * 4),
    );
    expect([...got]).toEqual(logits.data.map((v) => Math.fround(v)));
  });

  it("refuses what Triton refuses, in Triton's words", async () => {
    const key = object('small', 64);
    const status = async (r: Promise<{ status: number; json: { error?: string } }>) => {
      const { status: code, json } = await r;
      return [code, json.error];
    };
    expect(await status(register(s.url, 'in', { key, byte_size: 8 }))).toEqual([
      400,
      "shared memory region 'in' already in manager",
    ]);
    expect(await status(register(s.url, 'big', { key, offset: 32, byte_size: 64 }))).toEqual([
      400,
      "failed to register shared memory region 'big': invalid args",
    ]);
    expect(await status(register(s.url, 'none', { key: `/${tag}-missing`, byte_size: 8 }))).toEqual([
      500,
      `Unable to open shared memory region: '/${tag}-missing'`,
    ]);
    // shm_open takes no slash past the leading ones: nothing outside /dev/shm can be named.
    expect(await status(register(s.url, 'up', { key: '/../etc/passwd', byte_size: 8 }))).toEqual([
      500,
      "Unable to open shared memory region: '/../etc/passwd'",
    ]);
    mkdirSync(`/dev/shm/${tag}-dir`, { recursive: true });
    shm.track(`/dev/shm/${tag}-dir`);
    expect((await status(register(s.url, 'dir', { key: `/${tag}-dir`, byte_size: 0 })))[0]).toBe(500);
    // A FIFO is no shared memory object: reading it would hold a thread of the pool until someone writes.
    execFileSync('mkfifo', [`/dev/shm/${tag}-fifo`]);
    shm.track(`/dev/shm/${tag}-fifo`);
    expect(await status(register(s.url, 'fifo', { key: `/${tag}-fifo`, byte_size: 0 }))).toEqual([
      500,
      `Invalid shared memory region: '/${tag}-fifo'`,
    ]);
    expect(await status(register(s.url, 'slashes', { key: '///', byte_size: 8 }))).toEqual([
      400,
      "cannot register shared memory region 'slashes' - invalid shm key '///'",
    ]);
    expect(await status(register(s.url, 'r', { key: '/triton_python_backend_shm_region_1', byte_size: 8 }))).toEqual([
      400,
      "cannot register shared memory region 'r' with key '/triton_python_backend_shm_region_1' as the key contains the reserved prefix 'triton_python_backend_shm_region_'",
    ]);
    expect(await status(register(s.url, 'r', { byte_size: 8 }))).toEqual([
      400,
      "Shared memory register request has no 'key' field",
    ]);
    expect(await status(register(s.url, 'r', { key }))).toEqual([
      400,
      "Shared memory register request has no 'byte_size' field",
    ]);
    expect(await status(register(s.url, 'r', { key, byte_size: -1 }))).toEqual([
      400,
      'attempt to access JSON non-unsigned-integer as unsigned-integer',
    ]);
    expect(await status(call(`${s.url}/v2/systemsharedmemory/region/nope/status`))).toEqual([
      404,
      "Unable to find system shared memory region: 'nope'",
    ]);
    const window = (offset: number, size: number) =>
      status(
        infer(s.url, {
          inputs: [
            {
              ...featIn,
              parameters: { shared_memory_region: 'in', shared_memory_offset: offset, shared_memory_byte_size: size },
            },
          ],
        }),
      );
    expect(await window(32 + F * 4, 4)).toEqual([400, "Invalid offset for shared memory region: 'in'"]);
    expect(await window(64, F * 4)).toEqual([400, "Invalid offset + byte size for shared memory region: 'in'"]);
    expect(
      await status(
        infer(s.url, {
          inputs: [{ ...featIn, data: [...feat] }],
          outputs: [{ name: 'logits', parameters: { shared_memory_region: 'out', shared_memory_byte_size: 4 } }],
        }),
      ),
    ).toEqual([
      500,
      expect.stringMatching(
        /^shared memory size specified with the request for output 'logits' \(4 bytes\) should be at least \d+ bytes to hold the results$/,
      ),
    ]);
    expect(await status(call(`${s.url}/v2/systemsharedmemory/status`, 'POST'))).toEqual([405, 'Method Not Allowed']);
    expect(
      await status(call(`${s.url}/v2/cudasharedmemory/region/g/register`, 'POST', { raw_handle: {}, byte_size: 8 })),
    ).toEqual([400, "failed to register CUDA shared memory region: 'g', GPUs not supported"]);
    expect((await call(`${s.url}/v2/cudasharedmemory/status`)).json).toEqual([]);
  });

  it('answers an object that shrank under its region with an error, and serves on', async () => {
    const key = object('shrinks', 4096);
    expect((await register(s.url, 'shrinks', { key, byte_size: 4096 })).status).toBe(200);
    truncateSync(`/dev/shm/${key.slice(1)}`, 16);
    const r = await infer(s.url, {
      inputs: [{ ...featIn, parameters: { shared_memory_region: 'shrinks', shared_memory_byte_size: F * 4 } }],
    });
    expect([r.status, r.json.error]).toEqual([500, "shared memory region 'shrinks' is shorter than it was registered"]);
    expect((await infer(s.url, { inputs: [{ ...featIn, data: [...feat] }] })).status).toBe(200);
    expect((await call(`${s.url}/v2/systemsharedmemory/region/shrinks/unregister`, 'POST')).status).toBe(200);
  });

  it('unregisters one region or all, an unknown name quietly', async () => {
    expect((await call(`${s.url}/v2/systemsharedmemory/region/nope/unregister`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/systemsharedmemory/region/in/unregister`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/systemsharedmemory/status`)).json.map((r: { name: string }) => r.name)).toEqual([
      'out',
    ]);
    expect((await call(`${s.url}/v2/systemsharedmemory/unregister`, 'POST')).status).toBe(200);
    expect((await call(`${s.url}/v2/systemsharedmemory/status`)).json).toEqual([]);
    const gone = await infer(s.url, {
      inputs: [{ ...featIn, parameters: { shared_memory_region: 'in', shared_memory_byte_size: F * 4 } }],
    });
    expect([gone.status, gone.json.error]).toEqual([404, "Unable to find shared memory region: 'in'"]);
  });

  it('is refused unless the server allows it, as Triton refuses it by default', async () => {
    const r = await register(off.url, 'in', { key: object('off', 64), byte_size: 8 });
    expect([r.status, r.json.error]).toEqual([
      501,
      "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.",
    ]);
    expect((await call(`${off.url}/v2/systemsharedmemory/status`)).json).toEqual([]);
  });
});
