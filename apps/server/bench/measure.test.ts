import { describe, expect, it } from 'vitest';
import { measureBlocks, type Contender } from './measure.ts';
import { BenchReport } from './report.ts';

describe('measureBlocks', () => {
  it('warms each contender, then runs them in interleaved rounds, block by block', async () => {
    const calls: string[] = [];
    const contender = (name: string): Contender => ({
      name,
      run: async (block) => {
        calls.push(`${name}${block}`);
      },
    });
    const m = await measureBlocks([contender('a'), contender('b')], { blocks: 3, trials: 2, warmMs: 0 });
    expect(calls).toEqual(['a-1', 'b-1', 'a0', 'b0', 'b0', 'a0', 'a1', 'b1', 'b1', 'a1', 'a2', 'b2', 'b2', 'a2']);
    expect(m.ms.map((blocks) => blocks.length)).toEqual([3, 3]);
    for (const u of m.usage) {
      expect(u.minorFaultsPerRequest).toBeGreaterThanOrEqual(0);
      expect(u.cpuMsPerRequest).toBeGreaterThanOrEqual(0);
    }
  });

  it('warms a contender for warmMs of trials, at least once and at most 50 times', async () => {
    const warm = { slow: 0, instant: 0 };
    const slow: Contender = {
      name: 'slow',
      run: async (block) => {
        if (block < 0) warm.slow++;
        await new Promise((resolve) => setTimeout(resolve, 12));
      },
    };
    const instant: Contender = { name: 'instant', run: async (block) => void (block < 0 && warm.instant++) };
    await measureBlocks([slow, instant], { blocks: 3, trials: 1, warmMs: 50 });
    // 12 ms trials (a timer may fire late, never early): 50 ms is reached on the 5th at the latest.
    expect(warm.slow).toBeGreaterThanOrEqual(1);
    expect(warm.slow).toBeLessThanOrEqual(5);
    expect(warm.instant).toBe(50);
    await measureBlocks([slow], { blocks: 3, trials: 1, warmMs: 0 });
    expect(warm.slow).toBeLessThanOrEqual(6);
  });

  it('takes a time the contender measured itself over its wall time, per block', async () => {
    let call = 0;
    const selfTimed: Contender = {
      name: 'worker',
      run: async (block) => ({ selfTimedMs: 10 * (block + 1) + (call++ % 2) }),
    };
    const m = await measureBlocks([selfTimed], { blocks: 3, trials: 2 });
    // Trials of each block report 10·(block+1) and one more: the median of two is halfway.
    expect(m.ms[0]).toEqual([10.5, 20.5, 30.5]);
  });

  it('divides usage by the requests one trial makes', async () => {
    const garbage: Float64Array[] = [];
    const touch: Contender = {
      name: 'touch',
      // 8 MiB of fresh memory per trial, written so its pages are really faulted in.
      run: async () => void garbage.push(new Float64Array(1 << 20).fill(1)),
      requests: 4,
    };
    const m = await measureBlocks([touch], { blocks: 3, trials: 2, warmMs: 0 });
    // 2048 pages per trial, 4 requests each: at least a few hundred faults per request however the allocator works.
    expect(m.usage[0]!.minorFaultsPerRequest).toBeGreaterThan(100);
    expect(garbage.length).toBe(7);
  });
});

describe('BenchReport', () => {
  it('keeps medians under the metric names and ranges, usage and extras beside them in the JSON', async () => {
    const lines: string[] = [];
    const report = new BenchReport((l) => lines.push(l));
    const contenders: Contender[] = [
      { name: 'engine', run: async (b) => ({ selfTimedMs: [12, 11, 13][b] ?? 12 }) },
      { name: 'direct', run: async (b) => ({ selfTimedMs: [10, 10, 10][b] ?? 10 }) },
    ];
    const t = report.addMeasured(contenders, await measureBlocks(contenders, { blocks: 3, trials: 1 }));
    report.add(
      'engine_ratio',
      t.engine!.map((e, b) => e / t.direct![b]!),
      ['direct_ms'],
    );
    report.extra.machine = { cores: 2 };
    const json = report.json();
    expect(json.engine_ms).toBe(12);
    expect(json.engine_ratio).toBe(1.2);
    expect((json.ranges as Record<string, unknown>).engine_ratio).toEqual({
      min: 1.1,
      median: 1.2,
      max: 1.3,
      blocks: [1.2, 1.1, 1.3],
    });
    expect(Object.keys(json.usage as object)).toEqual(['engine', 'direct']);
    expect(json.machine).toEqual({ cores: 2 });
    report.print();
    const ratioLine = lines.find((l) => l.startsWith('engine_ratio'))!;
    expect(ratioLine).toContain('1.200 (1.100–1.300)');
    expect(ratioLine).toContain('direct_ms 10');
  });
});
