import { describe, expect, it } from 'vitest';
import { measureBlocks, SteadyWindows, type Contender } from './measure.ts';
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
    const m = await measureBlocks([contender('a'), contender('b')], { blocks: 3, trials: 2, warm: { maxMs: 0 } });
    expect(calls).toEqual(['a-1', 'b-1', 'a0', 'b0', 'b0', 'a0', 'a1', 'b1', 'b1', 'a1', 'a2', 'b2', 'b2', 'a2']);
    expect(m.ms.map((blocks) => blocks.length)).toEqual([3, 3]);
    for (const u of m.usage) {
      expect(u.minorFaultsPerRequest).toBeGreaterThanOrEqual(0);
      expect(u.cpuMsPerRequest).toBeGreaterThanOrEqual(0);
    }
  });

  it('warms a contender until its trials stop getting faster, and reports how', async () => {
    let warm = 0;
    // Trials get 5 ms faster each until 10 ms (the 19th), then stay there.
    const settling: Contender = {
      name: 'settling',
      run: async (block) => ({ selfTimedMs: block < 0 ? Math.max(10, 100 - 5 * warm++) : 10 }),
    };
    const policy = { minMs: 0, maxMs: 60_000, windowMs: 0, gain: 0.03, flatWindows: 3 };
    const m = await measureBlocks([settling], { blocks: 3, trials: 1, warm: policy });
    // One trial a window (windowMs 0): 19 faster windows, then 3 flat ones.
    expect(m.usage[0]!.warmUp).toMatchObject({ trials: 22, steady: true });
    expect(warm).toBe(22);
    // minMs holds a steady contender in its warm-up until that much time has passed.
    warm = 0;
    const held = await measureBlocks([settling], { blocks: 3, trials: 1, warm: { ...policy, minMs: 100 } });
    expect(held.usage[0]!.warmUp.ms).toBeGreaterThanOrEqual(100);
    expect(held.usage[0]!.warmUp.trials).toBeGreaterThan(22);
  });

  it('ends a warm-up at maxMs, not steady, when the contender is still getting faster', async () => {
    let n = 0;
    const faster: Contender = {
      name: 'faster',
      run: async () => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return { selfTimedMs: 1000 / ++n };
      },
    };
    const m = await measureBlocks([faster], { blocks: 3, trials: 1, warm: { maxMs: 30, windowMs: 0 } });
    expect(m.usage[0]!.warmUp.steady).toBe(false);
    expect(m.usage[0]!.warmUp.ms).toBeGreaterThanOrEqual(30);
    // maxMs 0: one warm-up trial, then the blocks.
    n = 0;
    await measureBlocks([faster], { blocks: 3, trials: 1, warm: { maxMs: 0 } });
    expect(n).toBe(4);
  });

  it('counts a window flat unless it beats the best so far by more than the gain', () => {
    const w = new SteadyWindows({ gain: 0.1, flatWindows: 2 });
    expect([w.add(10), w.add(9.5), w.add(8.9), w.add(8.5), w.add(9), w.add(5)]).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
    ]);
  });

  it('takes a time the contender measured itself over its wall time, per block', async () => {
    let call = 0;
    const selfTimed: Contender = {
      name: 'worker',
      run: async (block) => ({ selfTimedMs: 10 * (block + 1) + (call++ % 2) }),
    };
    const m = await measureBlocks([selfTimed], { blocks: 3, trials: 2, warm: { maxMs: 0 } });
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
    const m = await measureBlocks([touch], { blocks: 3, trials: 2, warm: { maxMs: 0 } });
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
    const t = report.addMeasured(
      contenders,
      await measureBlocks(contenders, { blocks: 3, trials: 1, warm: { maxMs: 0 } }),
    );
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
    expect((json.usage as Record<string, { warmUp: unknown }>).engine!.warmUp).toMatchObject({ trials: 1 });
    expect(lines.find((l) => l.startsWith('engine '))).toContain('1 trials, 0.0 s, not steady');
  });
});

describe('measureBlocks with a host probe', () => {
  it('samples before the first trial and after each, never during one', async () => {
    const events: string[] = [];
    let running = false;
    const c: Contender = {
      name: 'c',
      run: async (block) => {
        running = true;
        events.push(`trial${block}`);
        await new Promise((r) => setTimeout(r, 1));
        running = false;
      },
    };
    const probe = {
      sample: async () => {
        expect(running).toBe(false);
        events.push('sample');
      },
    };
    await measureBlocks([c], { blocks: 2, trials: 2, warm: { maxMs: 0 }, probe });
    // The warm-up's trial (block -1) is not sampled around.
    expect(events).toEqual([
      'trial-1',
      'sample',
      'trial0',
      'sample',
      'trial0',
      'sample',
      'trial1',
      'sample',
      'trial1',
      'sample',
    ]);
  });
});
