// The bench's ceilings must do the same work as what they are compared with, or the comparison means nothing:
// the bare python3 pipe echoes the bytes it gets and runs the loop; the bare gRPC pair answers unary and stream.
import { describe, expect, it } from 'vitest';
import { pythonInterpreter } from '../src/engine/backends/python/autoComplete.ts';
import { bareEchoClient, startBareEchoServer } from './bareGrpc.ts';
import { barePython } from './barePython.ts';

describe('bench ceilings', () => {
  it('the bare python3 pipe echoes small and multi-megabyte FP32 payloads byte for byte, and burns', async () => {
    const py = barePython(pythonInterpreter());
    try {
      const small = new Uint8Array(Float32Array.of(1, 2, 3, 4.5).buffer);
      expect([...(await py.echo(small))]).toEqual([...small]);
      const big = new Float32Array(1_225_000).map((_, i) => i);
      const back = await py.echo(new Uint8Array(big.buffer));
      expect(back.byteLength).toBe(big.byteLength);
      expect(back.equals(Buffer.from(big.buffer))).toBe(true);
      await py.burn(1000);
      expect([...(await py.echo(small))]).toEqual([...small]); // still in step after a burn
    } finally {
      py.close();
    }
  });

  it('the bare gRPC pair answers a unary call and a stream message with the request’s first 160 bytes', async () => {
    let writes = 0;
    const server = await startBareEchoServer(() => writes++);
    const client = bareEchoClient(server.address);
    try {
      const request = Buffer.from(Array.from({ length: 1100 }, (_, i) => i % 251));
      expect(await client.echo(request)).toEqual(request.subarray(0, 160));
      const stream = client.stream();
      const got = new Promise<Buffer>((resolve) => stream.once('data', resolve));
      stream.write(request.subarray(0, 50));
      expect(await got).toEqual(request.subarray(0, 50));
      stream.end();
      expect(writes).toBe(1);
    } finally {
      client.close();
      await server.close();
    }
  });
});
