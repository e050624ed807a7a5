// A config worker that cannot be started (its script could not be prepared, or `new Worker` threw) must not leave
// the configs waiting for it: they are parsed on the calling thread, and the next large config tries the worker again.
import { parsePbtxtLenient } from '@ensemble-studio/core';
import { afterEach, describe, expect, it, vi } from 'vitest';

const failures = vi.hoisted(() => ({ left: 0, tries: 0 }));

vi.mock('../workerScript.ts', async (importActual) => {
  const actual = await importActual<typeof import('../workerScript.ts')>();
  return {
    ...actual,
    startWorker: (...args: Parameters<typeof actual.startWorker>) => {
      failures.tries++;
      if (failures.left > 0) {
        failures.left--;
        return Promise.reject(new Error('no threads left'));
      }
      return actual.startWorker(...args);
    },
  };
});

const { parseConfigBytes, WORKER_CONFIG_BYTES } = await import('./configParser.ts');

const big = (n: number) =>
  `name: "m"\nbackend: "python"\ninput [{ name: "x" data_type: TYPE_FP32 dims: [${new Array(n).fill(1).join(',')}] }]\n`;

describe('parseConfigBytes when its worker cannot start', () => {
  afterEach(() => vi.restoreAllMocks());

  it('parses the waiting configs here, and starts the worker for a later one', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const text = big(40_000);
    expect(Buffer.byteLength(text)).toBeGreaterThan(WORKER_CONFIG_BYTES);
    failures.left = 1;
    const both = await Promise.all([
      parseConfigBytes(Buffer.from(text)),
      parseConfigBytes(Buffer.from(`${text}oops\n`)),
    ]);
    expect(both).toEqual([parsePbtxtLenient(text), parsePbtxtLenient(`${text}oops\n`)]);
    expect(failures.tries).toBe(1);
    expect(warn.mock.calls.join('\n')).toMatch(/config parser worker could not start \(Error: no threads left\)/);

    expect(await parseConfigBytes(Buffer.from(text))).toEqual(parsePbtxtLenient(text));
    expect(failures.tries).toBe(2);
  });
});
