// The Python backend's ceiling: a bare python3 process answering over two pipes (fds 3 and 4, as the stub's),
// with no engine, no JSON header and no model — what a round trip through a pipe costs on this machine.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

// op 0 echoes FP32 bytes through numpy (one copy out, as a model returning its input); op 1 runs the same
// pure-Python loop as the bench's burn model for a u32 count, in a function as there (locals, not globals).
const SCRIPT = `
import os, struct, sys
import numpy as np
fin = os.fdopen(3, "rb", buffering=0)
fout = os.fdopen(4, "wb", buffering=0)
def read_exact(n):
    buf = bytearray(n); view = memoryview(buf); got = 0
    while got < n:
        k = fin.readinto(view[got:])
        if not k: sys.exit(0)
        got += k
    return buf
def write_all(b):
    view = memoryview(b)
    while len(view): view = view[fout.write(view):]
def send(out):
    # The length and the bytes in one writev, as the stub writes a frame: two writes could wake Node twice.
    head = struct.pack("<I", len(out))
    n = os.writev(4, [head, out])
    if n < 4:
        write_all(head[n:])
        n = 4
    write_all(memoryview(out)[n - 4:])
def burn(n):
    s = 0
    for i in range(n):
        s += i % 7
    return s
def main():
    while True:
        op, n = struct.unpack("<II", read_exact(8))
        payload = read_exact(n)
        if op == 0:
            out = np.frombuffer(payload, dtype=np.float32).tobytes()
        else:
            out = struct.pack("<f", float(burn(struct.unpack("<I", payload)[0])))
        send(out)
main()
`;

export interface BarePython {
  /** Sends `data` (FP32 bytes) and resolves with the echoed bytes (valid until the next call). */
  echo(data: Uint8Array): Promise<Buffer>;
  /** Runs the pure-Python loop `count` times in the process. */
  burn(count: number): Promise<void>;
  readonly pid: number;
  close(): void;
}

/**
 * A bare python3 (`python`, with the stub's allocator settings) reading frames on fd 3 and answering on fd 4.
 * @example const py = barePython('/usr/bin/python3'); await py.echo(new Uint8Array(64)); py.close();
 */
export function barePython(python: string): BarePython {
  const proc: ChildProcess = spawn(python, ['-u', '-c', SCRIPT], {
    stdio: ['ignore', 'inherit', 'inherit', 'pipe', 'pipe'],
    env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '67108864', MALLOC_TRIM_THRESHOLD_: '268435456' },
  });
  const toPy = proc.stdio[3] as Writable;
  const fromPy = proc.stdio[4] as Readable;
  // Answers are gathered into one buffer reused from call to call: a fresh one per answer (Buffer.concat) cost
  // ~1,200 fresh pages per 4.9 MB echo, and its garbage the GCs and faults of whatever ran next in this process.
  let into = Buffer.allocUnsafeSlow(1 << 16);
  let have = 0;
  let waiting: ((b: Buffer) => void) | undefined;
  fromPy.on('data', (c: Buffer) => {
    const need = have + c.length;
    if (need > into.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, 2 * into.length));
      into.copy(grown, 0, 0, have);
      into = grown;
    }
    c.copy(into, have);
    have = need;
    if (have < 4) return;
    const expected = into.readUInt32LE(0);
    if (have < 4 + expected) return;
    have = 0;
    const w = waiting;
    waiting = undefined;
    w?.(into.subarray(4, 4 + expected));
  });
  const failed = new Promise<never>((_, reject) => {
    proc.once('error', (err) => reject(new Error(`bare python3 (${python}) could not start: ${err.message}`)));
    proc.once('exit', (code) => reject(new Error(`bare python3 (${python}) exited with ${code}`)));
  });
  failed.catch(() => undefined);
  const call = (op: number, payload: Uint8Array) => {
    const answer = new Promise<Buffer>((resolve) => (waiting = resolve));
    const head = Buffer.alloc(8);
    head.writeUInt32LE(op, 0);
    head.writeUInt32LE(payload.byteLength, 4);
    toPy.write(head);
    toPy.write(payload);
    return Promise.race([answer, failed]);
  };
  return {
    pid: proc.pid!,
    echo: (data) => call(0, data),
    burn: async (count) => {
      await call(1, new Uint8Array(Uint32Array.of(count).buffer));
    },
    close: () => {
      proc.removeAllListeners('exit');
      toPy.end();
    },
  };
}
