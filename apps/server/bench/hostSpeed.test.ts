import { describe, expect, it } from 'vitest';
import { HostSamples, HostSpeed, describeHostSpeed, parseCpuList } from './hostSpeed.ts';

describe('parseCpuList', () => {
  it('reads the kernel’s CPU lists, ranges and single CPUs', () => {
    expect(parseCpuList('0-1')).toEqual([0, 1]);
    expect(parseCpuList('0-2,5,7-8\n')).toEqual([0, 1, 2, 5, 7, 8]);
    expect(parseCpuList('3')).toEqual([3]);
  });

  it('refuses what is not one', () => {
    expect(() => parseCpuList('0-1,x')).toThrow("not a CPU list: '0-1,x'");
    expect(() => parseCpuList('')).toThrow('not a CPU list');
  });
});

describe('HostSamples', () => {
  it('sums each CPU’s probe times up: full speed at the quick end, the median, the slow end', () => {
    const s = new HostSamples([0, 1]);
    s.add([0.01, 0.25]); // one freak sample, far quicker than CPU 0 ever runs the probe again
    for (let i = 1; i < 20; i++) s.add([0.1, i <= 9 ? 0.25 : 0.75]);
    expect(s.count).toBe(20);
    const [cpu0, cpu1] = s.summary();
    expect(cpu0).toEqual({ cpu: 0, samples: 20, full_speed_ms: 0.1, median_ms: 0.1, p90_ms: 0.1, median_speed: 1 });
    expect(cpu1).toEqual({
      cpu: 1,
      samples: 20,
      full_speed_ms: 0.25,
      median_ms: 0.5,
      p90_ms: 0.75,
      median_speed: 0.5,
    });
  });

  it('gives the host’s speed over a span of time: the slowest CPU’s median then, against its full speed', () => {
    const s = new HostSamples([0, 1]);
    for (let t = 0; t < 20; t++) s.add([0.1, 0.2], 1000 + t); // full speed: 0.1 and 0.2 ms
    s.add([0.1, 0.4], 2000); // CPU 1 at half speed
    s.add([0.125, 0.2], 2001);
    s.add([0.1, 0.4], 2002);
    expect(s.speedBetween(1000, 1019)).toBe(1);
    expect(s.speedBetween(2000, 2002)).toBe(0.5); // CPU 1's median 0.4 against 0.2
    expect(s.speedBetween(2001, 2001)).toBe(0.8); // CPU 0's 0.125 against 0.1
    expect(s.speedBetween(3000, 4000)).toBeUndefined();
  });

  it('has nothing to sum up before a sample, and refuses a sample without a duration for each CPU', () => {
    const s = new HostSamples([0, 1]);
    expect(s.summary()).toEqual([]);
    expect(() => s.add([0.3])).toThrow('a host sample needs 2 durations, got 1');
  });
});

describe('describeHostSpeed', () => {
  it('says which CPUs the host ran slower, and says so only where it did', () => {
    const s = new HostSamples([0, 1]);
    for (let i = 0; i < 20; i++) s.add([0.1, i < 12 ? 0.2 : 0.1]);
    expect(describeHostSpeed(s.summary())).toBe(
      'ms a probe (20 samples): CPU 0 median 0.100 (p90 0.100, full speed 0.100), CPU 1 median 0.200 (p90 0.200, full speed 0.100); the host ran CPU 1 at 0.50 of full speed for half of the run or more',
    );
    const steady = new HostSamples([0]);
    for (let i = 0; i < 20; i++) steady.add([i < 9 ? 0.105 : 0.1]);
    expect(describeHostSpeed(steady.summary())).toBe(
      'ms a probe (20 samples): CPU 0 median 0.100 (p90 0.105, full speed 0.100); every CPU at full speed for most of the run',
    );
    expect(describeHostSpeed([])).toBe('');
  });
});

describe('HostSpeed', () => {
  it('pins a probe to each CPU and samples them together', async () => {
    const lines: string[] = [];
    const speed = await HostSpeed.start((l) => lines.push(l));
    expect(lines).toEqual([]);
    try {
      await speed!.sample();
      await speed!.sample();
      const cpus = speed!.samples.summary();
      expect(cpus.length).toBe(speed!.samples.cpus.length);
      expect(cpus.length).toBeGreaterThan(0);
      for (const c of cpus) {
        expect(c.samples).toBe(2);
        expect(c.full_speed_ms).toBeGreaterThan(0);
        expect(c.median_ms).toBeGreaterThanOrEqual(c.full_speed_ms);
      }
    } finally {
      speed!.close();
    }
  });

  it('samples on an interval until stopped', async () => {
    const speed = (await HostSpeed.start(() => {}, [0]))!;
    try {
      const stop = speed.every(10);
      await new Promise((r) => setTimeout(r, 100));
      await stop();
      const taken = speed.samples.count;
      expect(taken).toBeGreaterThanOrEqual(3);
      await new Promise((r) => setTimeout(r, 50));
      expect(speed.samples.count).toBe(taken);
      expect(speed.samples.speedBetween(0, Date.now())).toBeGreaterThan(0);
    } finally {
      speed.close();
    }
  });

  it('stops sampling, saying why once, when a probe goes away mid-run', async () => {
    const lines: string[] = [];
    const speed = (await HostSpeed.start((l) => lines.push(l), [0]))!;
    await speed.sample();
    speed.close(); // the probe exits, as one killed would
    await speed.sample();
    await speed.sample();
    expect(speed.samples.count).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^host speed no longer sampled after 1 samples: the probe on CPU 0 exited \(0\)/);
  });

  it('says why when a CPU cannot be pinned, and samples nothing', async () => {
    const lines: string[] = [];
    expect(await HostSpeed.start((l) => lines.push(l), [0, 4095])).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^host speed not sampled: the probe on CPU 4095 exited \(1\) taskset: .*/);
  });
});
