import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/tempDir.ts';
import { TRACE_DEFAULTS } from './traceConfig.ts';
import { TraceSettings } from './traceSettings.ts';

// Triton's TraceManager semantics (server:src/tracer.cc): a model's setting follows the global one in each value it
// was not given; sampling by rate and count; traces written to <file> at shutdown or to <file>.<n> by frequency.

const on = (file: string, extra: Partial<typeof TRACE_DEFAULTS> = {}) =>
  new TraceSettings({ ...TRACE_DEFAULTS, level: 1, rate: 1, file, ...extra });

/** Samples and finishes `n` requests to `model` with a trace each, as the endpoints do. */
function traceRequests(settings: TraceSettings, model: string, n: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = settings.start(model);
    if (!t) continue;
    t.stamp('HTTP_RECV_START', 10n + BigInt(i));
    t.end();
    ids.push(t.id);
  }
  return ids;
}

/** A trace file's path in a fresh temporary directory (removed after the test). */
const traceFileIn = (prefix: string) => join(tempDir(prefix), 't.json');

const readTraces = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { id: number }[];

describe('TraceSettings (Triton trace setting updates)', () => {
  it("reports Triton's defaults, and a model's setting as the global one until it is given its own", () => {
    const s = new TraceSettings(TRACE_DEFAULTS);
    const off = {
      trace_level: ['OFF'],
      trace_rate: '1000',
      trace_count: '-1',
      log_frequency: '0',
      trace_file: '',
      trace_mode: 'triton',
    };
    expect(s.json()).toEqual(off);
    expect(s.json('m')).toEqual(off);
    expect(s.active).toBe(false);
    expect(s.start('m')).toBeUndefined();
  });

  it('a model follows the global values it was not given, also when they change later; null gives one back', () => {
    const s = on('t.json');
    s.update('m', { rate: 5 });
    s.update(undefined, { rate: 7, level: 3 });
    expect([s.json('m').trace_rate, s.json('m').trace_level]).toEqual(['5', ['TIMESTAMPS', 'TENSORS']]);
    expect(s.json().trace_rate).toBe('7');
    s.update('m', { rate: null });
    expect(s.json('m').trace_rate).toBe('7');
    // A global value cleared is the server's start value again.
    s.update(undefined, { rate: null, level: null });
    expect([s.json().trace_rate, s.json('m').trace_level]).toEqual(['1', ['TIMESTAMPS']]);
  });

  it('refuses a setting that would trace nothing, unless it turns tracing off', () => {
    const s = new TraceSettings({ ...TRACE_DEFAULTS, rate: 1 });
    expect(() => s.update(undefined, { level: 1 })).toThrow(
      'Attempting to set invalid trace setting :trace file name is not given',
    );
    const t = on('t.json');
    expect(() => t.update('m', { rate: 0 })).toThrow(
      'Attempting to set invalid trace setting :sample rate must be non-zero',
    );
    t.update('m', { level: 0, rate: 0 });
    expect(t.json('m').trace_level).toEqual(['OFF']);
  });

  it('samples one request in rate while the count lasts, and reports the count left', () => {
    const s = on(traceFileIn('trace-count-'), { rate: 2, count: 3 });
    expect(traceRequests(s, 'm', 9)).toEqual([1, 2, 3]);
    expect(s.json().trace_count).toBe('0');
    expect(s.active).toBe(false);
  });

  it('writes every trace to <file> at shutdown, as one JSON array', async () => {
    const file = traceFileIn('trace-file-');
    const s = on(file);
    traceRequests(s, 'm', 3);
    expect(existsSync(file)).toBe(false);
    await s.close();
    expect(readTraces(file).map((r) => r.id)).toEqual([1, 2, 3]);
  });

  it('writes <file>.0, <file>.1 … every log_frequency traces, and the rest at shutdown', async () => {
    const file = traceFileIn('trace-freq-');
    const s = on(file, { logFrequency: 2 });
    traceRequests(s, 'm', 5);
    await s.close();
    expect([0, 1, 2].map((n) => readTraces(`${file}.${n}`).map((r) => r.id))).toEqual([[1, 2], [3, 4], [5]]);
    expect(existsSync(file)).toBe(false);
  });

  it('writes an indexed file once the count is used up (at rate 1, as Triton does)', async () => {
    const file = traceFileIn('trace-done-');
    const s = on(file, { count: 2 });
    traceRequests(s, 'm', 4);
    await s.close();
    expect(readTraces(`${file}.0`).map((r) => r.id)).toEqual([1, 2]);
  });

  it("writes a replaced setting's traces when it is replaced, and a trace that finishes under it after", async () => {
    const file = traceFileIn('trace-retire-');
    const s = on(file);
    traceRequests(s, 'm', 1);
    const running = s.start('m')!;
    s.update(undefined, { rate: 2 });
    running.stamp('HTTP_RECV_START', 1n);
    running.end();
    await s.close();
    expect(readTraces(file).map((r) => r.id)).toEqual([1, 2]);
  });
});
