import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const testing = join(import.meta.dirname, '../testing');

describe('the per-chunk path under tsx', () => {
  // tsx compiles with keepNames: every named closure gets Object.defineProperty(fn, 'name', …) each time it is made
  // (~0.5 µs apiece here, against ~0.04 µs for the closure). A stream runs the graph ~31 times a second, so the path
  // of a warm chunk makes none: callbacks are arguments, methods or made once. Counted in a child run under tsx, as
  // the server runs (vitest's own transform keeps no names).
  it('defines no function names per chunk of a warm VAD stream', { timeout: 300_000 }, async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', join(testing, 'countNameDefines.mjs'), '--import', 'tsx', join(testing, 'namedClosuresChild.ts')],
      { cwd: join(import.meta.dirname, '../..') },
    );
    const { perChunk, warm } = JSON.parse(stdout.trim().split('\n').pop()!) as { perChunk: number; warm: number };
    expect(warm).toBeGreaterThan(0); // the counter saw tsx's modules load: it counts what it should
    expect(perChunk).toBe(0);
  });
});
