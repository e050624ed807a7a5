import { describe, expect, it } from 'vitest';
import { CustomMetrics, MAX_CUSTOM_FAMILIES, MAX_CUSTOM_SERIES } from './customMetrics.ts';

const a = { instance: 'a' };
const b = { instance: 'b' };

function counterOf(m: CustomMetrics, owner: object, labels: Record<string, string> = { model: 'm' }) {
  expect(m.apply(owner, { op: 'family', name: 'requests_total', description: 'Requests', kind: 'counter' })).toBe(
    undefined,
  );
  expect(m.apply(owner, { op: 'create', name: 'requests_total', labels })).toBe(undefined);
}

describe('CustomMetrics', () => {
  it('shares one series between the instances that create the same labels, and drops it with the last', () => {
    const m = new CustomMetrics();
    counterOf(m, a);
    counterOf(m, b);
    m.apply(a, { op: 'increment', name: 'requests_total', labels: { model: 'm' }, value: 2 });
    m.apply(b, { op: 'increment', name: 'requests_total', labels: { model: 'm' }, value: 3 });
    expect(m.snapshot()).toEqual([
      {
        name: 'requests_total',
        description: 'Requests',
        kind: 'counter',
        series: [{ labels: { model: 'm' }, value: 5 }],
      },
    ]);
    m.release(a);
    expect(m.snapshot()[0]!.series).toEqual([{ labels: { model: 'm' }, value: 5 }]);
    // The instance that ended can no longer change it.
    expect(m.apply(a, { op: 'increment', name: 'requests_total', labels: { model: 'm' }, value: 1 })).toMatch(
      /no metric with labels/,
    );
    m.release(b);
    expect(m.snapshot()).toEqual([{ name: 'requests_total', description: 'Requests', kind: 'counter', series: [] }]);
  });

  it('keys a series by its label set whatever the order the labels came in', () => {
    const m = new CustomMetrics();
    counterOf(m, a, { model: 'm', version: '1' });
    counterOf(m, b, { version: '1', model: 'm' });
    expect(m.snapshot()[0]!.series).toHaveLength(1);
  });

  it("keeps a family's first description and refuses it as another kind, as Triton's registry does", () => {
    const m = new CustomMetrics();
    counterOf(m, a);
    expect(m.apply(b, { op: 'family', name: 'requests_total', description: 'other', kind: 'counter' })).toBe(undefined);
    expect(m.apply(b, { op: 'family', name: 'requests_total', description: 'x', kind: 'gauge' })).toBe(
      "metric family 'requests_total' is already a counter; it cannot be declared again as a gauge",
    );
    expect(m.snapshot()[0]!.description).toBe('Requests');
  });

  it('applies set to gauges, observations to histograms, and refuses what Triton refuses', () => {
    const m = new CustomMetrics();
    m.apply(a, { op: 'family', name: 'size', description: '', kind: 'gauge' });
    m.apply(a, { op: 'create', name: 'size', labels: {} });
    m.apply(a, { op: 'set', name: 'size', labels: {}, value: 7 });
    m.apply(a, { op: 'increment', name: 'size', labels: {}, value: -2 });
    m.apply(a, { op: 'family', name: 'lat', description: '', kind: 'histogram' });
    expect(m.apply(a, { op: 'create', name: 'lat', labels: {}, buckets: [1, 10] })).toBe(undefined);
    for (const v of [0.5, 1, 5, 50]) m.apply(a, { op: 'observe', name: 'lat', labels: {}, value: v });
    counterOf(m, a);
    const [size, lat] = m.snapshot();
    expect(size!.series).toEqual([{ labels: {}, value: 5 }]);
    expect(lat!.series).toEqual([
      {
        labels: {},
        value: 56.5,
        count: 4,
        buckets: [
          { le: 1, count: 2 },
          { le: 10, count: 3 },
        ],
      },
    ]);
    const on = (name: string, op: string, value: number) => m.apply(a, { op, name, labels: {}, value });
    expect(m.apply(a, { op: 'increment', name: 'requests_total', labels: { model: 'm' }, value: -1 })).toMatch(
      /a counter only goes up/,
    );
    expect(m.apply(a, { op: 'set', name: 'requests_total', labels: { model: 'm' }, value: 1 })).toMatch(
      /only a gauge can be set/,
    );
    expect(on('lat', 'increment', 1)).toMatch(/a histogram does not support increment/);
    expect(on('size', 'observe', 1)).toMatch(/only a histogram takes observations/);
    expect(on('size', 'drop', 1)).toMatch(/unknown operation "drop"/);
    expect(on('size', 'set', Number.NaN)).toMatch(/a value must be a number/);
  });

  it('refuses what a stub that was bypassed could send: bad names, labels, buckets and undeclared families', () => {
    const m = new CustomMetrics();
    const refusals: [Record<string, unknown>, RegExp][] = [
      [{ op: 'family', name: '1bad', kind: 'counter' }, /must match/],
      [{ op: 'family', name: 'x'.repeat(2000), kind: 'counter' }, /must match/],
      [{ op: 'family', name: 'ok', kind: 'summary' }, /kind must be one of counter, gauge, histogram/],
      [{ op: 'family', name: 'nv_inference_count', kind: 'counter' }, /are the server's own/],
      [{ op: 'create', name: 'never', labels: {} }, /'never' was not declared/],
    ];
    for (const [msg, why] of refusals) expect(m.apply(a, msg)).toMatch(why);
    m.apply(a, { op: 'family', name: 'h', description: '', kind: 'histogram' });
    m.apply(a, { op: 'family', name: 'c', description: '', kind: 'counter' });
    expect(m.apply(a, { op: 'create', name: 'c', labels: { __name__: 'x' } })).toMatch(/not a Prometheus label name/);
    expect(m.apply(a, { op: 'create', name: 'c', labels: { 'a-b': 'x' } })).toMatch(/not a Prometheus label name/);
    expect(m.apply(a, { op: 'create', name: 'c', labels: { a: 1 } })).toMatch(/label 'a' must be a string/);
    expect(m.apply(a, { op: 'create', name: 'c', labels: ['x'] })).toMatch(/labels must be an object/);
    expect(m.apply(a, { op: 'create', name: 'h', labels: {}, buckets: [10, 1] })).toMatch(/increasing order/);
    expect(m.apply(a, { op: 'create', name: 'h', labels: {}, buckets: [1, Infinity] })).toMatch(/finite numbers/);
    expect(m.snapshot().every((f) => f.series.length === 0)).toBe(true);
  });

  it('holds at most MAX_CUSTOM_SERIES series, so a label set per request cannot grow the server without end', () => {
    const m = new CustomMetrics();
    m.apply(a, { op: 'family', name: 'c', description: '', kind: 'counter' });
    for (let i = 0; i < MAX_CUSTOM_SERIES; i++)
      expect(m.apply(a, { op: 'create', name: 'c', labels: { id: String(i) } })).toBe(undefined);
    expect(m.apply(a, { op: 'create', name: 'c', labels: { id: 'one more' } })).toMatch(/holds 10000 custom metrics/);
    // One more reference to a series already held is not a new series.
    expect(m.apply(b, { op: 'create', name: 'c', labels: { id: '0' } })).toBe(undefined);
    m.release(a);
    expect(m.snapshot()[0]!.series).toHaveLength(1);
    expect(m.apply(a, { op: 'create', name: 'c', labels: { id: 'now room' } })).toBe(undefined);
  });

  it('holds at most MAX_CUSTOM_FAMILIES families', () => {
    const m = new CustomMetrics();
    for (let i = 0; i < MAX_CUSTOM_FAMILIES; i++)
      expect(m.apply(a, { op: 'family', name: `f${i}`, description: '', kind: 'gauge' })).toBe(undefined);
    expect(m.apply(a, { op: 'family', name: 'f0', description: '', kind: 'gauge' })).toBe(undefined);
    expect(m.apply(a, { op: 'family', name: 'one_more', description: '', kind: 'gauge' })).toMatch(
      /holds 1000 custom metric families/,
    );
  });
});
