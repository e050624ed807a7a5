import { describe, expect, it } from 'vitest';
import { HostSamples, HostSpeed, parseCpuList } from './hostSpeed.ts';

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
  it('reads each sample as the slowest CPU’s share of its own full speed', () => {
    const s = new HostSamples([0, 1]);
    for (let i = 0; i < 18; i++) s.add([0.25, 0.2]); // full speed: 0.25 ms on CPU 0, 0.2 ms on CPU 1
    const slow0 = s.add([0.5, 0.2]);
    const slow1 = s.add([0.25, 0.8]);
    expect(s.best()).toEqual([0.25, 0.2]);
    expect(s.speedAt(0)).toBe(1);
    expect(s.speedAt(slow0)).toBe(0.5);
    expect(s.speedAt(slow1)).toBe(0.25);
    const [cpu0, cpu1] = s.summary();
    expect(cpu0).toMatchObject({
      cpu: 0,
      samples: 20,
      best_ms: 0.25,
      median_speed: 1,
      min_speed: 0.5,
      slow_share: 0.05,
    });
    expect(cpu1).toMatchObject({ cpu: 1, samples: 20, best_ms: 0.2, min_speed: 0.25, slow_share: 0.05 });
  });

  it('takes full speed from the quick end of the samples, not from one freak sample', () => {
    const s = new HostSamples([0]);
    s.add([0.01]); // a sample far quicker than the CPU ever runs the work again
    for (let i = 0; i < 39; i++) s.add([0.3]);
    expect(s.best()).toEqual([0.3]);
    expect(s.speedAt(1)).toBe(1);
    expect(s.speedAt(0)).toBe(1); // never above 1
  });

  it('refuses a sample without a duration for each CPU', () => {
    const s = new HostSamples([0, 1]);
    expect(() => s.add([0.3])).toThrow('a host sample needs 2 durations, got 1');
    expect(() => s.speedAt(0)).toThrow('no host sample 0');
  });
});

describe('HostSpeed', () => {
  it('pins a probe to each CPU and samples them together', async () => {
    const lines: string[] = [];
    const speed = await HostSpeed.start((l) => lines.push(l), 3);
    expect(lines).toEqual([]);
    try {
      const i = await speed!.sample();
      expect(i).toBe(3); // after the three calibration samples
      expect(speed!.samples.cpus.length).toBeGreaterThan(0);
      const speedAt = speed!.speedAt(i);
      expect(speedAt).toBeGreaterThan(0);
      expect(speedAt).toBeLessThanOrEqual(1);
    } finally {
      speed!.close();
    }
  });

  it('says why when a CPU cannot be pinned, and samples nothing', async () => {
    const lines: string[] = [];
    expect(await HostSpeed.start((l) => lines.push(l), 1, [0, 4095])).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^host speed not sampled: the probe on CPU 4095 exited \(1\) taskset: .*/);
  });
});
