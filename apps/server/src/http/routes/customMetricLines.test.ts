import { describe, expect, it } from 'vitest';
import { customMetricLines } from './customMetricLines.ts';

describe('customMetricLines', () => {
  it("writes each family as Prometheus's text format, labels in name order and escaped", () => {
    expect(
      customMetricLines([
        {
          name: 'requests_process_latency_ns',
          description: 'Cumulative time\\spent\nprocessing',
          kind: 'counter',
          series: [{ labels: { version: '1', model: 'say "hi"\n' }, value: 1234 }],
        },
        { name: 'empty', description: 'no series yet', kind: 'gauge', series: [] },
        { name: 'depth', description: 'Queue depth', kind: 'gauge', series: [{ labels: {}, value: -2.5 }] },
      ]),
    ).toEqual([
      '# HELP requests_process_latency_ns Cumulative time\\\\spent\\nprocessing',
      '# TYPE requests_process_latency_ns counter',
      'requests_process_latency_ns{model="say \\"hi\\"\\n",version="1"} 1234',
      '# HELP depth Queue depth',
      '# TYPE depth gauge',
      'depth -2.5',
    ]);
  });

  it('writes a histogram as cumulative buckets, +Inf, sum and count', () => {
    expect(
      customMetricLines([
        {
          name: 'lat',
          description: 'Latency',
          kind: 'histogram',
          series: [
            {
              labels: { model: 'm' },
              value: 56.5,
              count: 4,
              buckets: [
                { le: 1, count: 2 },
                { le: 10.5, count: 3 },
              ],
            },
          ],
        },
      ]),
    ).toEqual([
      '# HELP lat Latency',
      '# TYPE lat histogram',
      'lat_bucket{model="m",le="1"} 2',
      'lat_bucket{model="m",le="10.5"} 3',
      'lat_bucket{model="m",le="+Inf"} 4',
      'lat_sum{model="m"} 56.5',
      'lat_count{model="m"} 4',
    ]);
  });
});
