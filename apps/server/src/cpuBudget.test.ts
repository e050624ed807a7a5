// The CPUs a process may use, read from fake /proc/self/cgroup and /sys/fs/cgroup trees.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cgroupCpuLimit } from './cpuBudget.ts';

describe('cgroupCpuLimit', () => {
  const dir = mkdtempSync(join(tmpdir(), 'studio-cgroup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  /** A fake tree: `files` under its cgroup root, `cgroup` as /proc/self/cgroup; returns cgroupCpuLimit's answer. */
  const limitOf = (cgroup: string, files: Record<string, string>) => {
    const root = join(dir, String(n++));
    mkdirSync(root);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    writeFileSync(join(root, 'self-cgroup'), cgroup);
    return cgroupCpuLimit(root, join(root, 'self-cgroup'));
  };

  it('reads cgroup v2 cpu.max: a quota, or none', () => {
    expect(limitOf('0::/box\n', { 'box/cpu.max': '150000 100000\n' })).toBe(1.5);
    expect(limitOf('0::/box\n', { 'box/cpu.max': 'max 100000\n' })).toBeUndefined();
  });

  it('reads cgroup v1 cfs quota and period, under either mount name; -1 is no cap', () => {
    const v1 = '4:memory:/m\n3:cpu,cpuacct:/docker/abc\n';
    const files = {
      'cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '100000',
      'cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000',
    };
    expect(limitOf(v1, files)).toBe(1);
    expect(limitOf('1:cpu:/\n', { 'cpu/cpu.cfs_quota_us': '-1', 'cpu/cpu.cfs_period_us': '100000' })).toBeUndefined();
  });

  it('is undefined where nothing can be read', () => {
    expect(limitOf('0::/gone\n', {})).toBeUndefined();
    expect(cgroupCpuLimit(dir, join(dir, 'no-such-file'))).toBeUndefined();
  });
});
