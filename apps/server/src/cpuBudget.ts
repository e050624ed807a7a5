import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

// How much CPU this process may use: the CPUs it may run on (its affinity, `taskset`), less where its control
// group caps its time (a container started with `--cpus 1.5` on a 16-CPU host may use 1.5 of them).

/** The control group's CPU cap in CPUs (quota / period), or undefined where none is set or none can be read. */
export function cgroupCpuLimit(root = '/sys/fs/cgroup', procCgroup = '/proc/self/cgroup'): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(procCgroup, 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  for (const line of lines) {
    const [, controllers = '', path = '/'] = line.split(':');
    // cgroup v2: one hierarchy, `0::/path`, its cap in cpu.max as "quota period" (or "max period").
    if (line.startsWith('0::')) {
      const [quota, period] = read(join(root, path, 'cpu.max'))?.split(/\s+/) ?? [];
      const limit = ratio(quota, period);
      if (limit !== undefined) return limit;
    }
    // cgroup v1: the cpu controller's own hierarchy, mounted as cpu or cpu,cpuacct.
    if (controllers.split(',').includes('cpu'))
      for (const mount of ['cpu', 'cpu,cpuacct', 'cpuacct,cpu']) {
        const dir = join(root, mount, path);
        const limit = ratio(read(join(dir, 'cpu.cfs_quota_us')), read(join(dir, 'cpu.cfs_period_us')));
        if (limit !== undefined) return limit;
      }
  }
  return undefined;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** quota / period where both are positive numbers ("max" and -1 mean no cap). */
function ratio(quota: string | undefined, period: string | undefined): number | undefined {
  const q = Number(quota);
  const p = Number(period);
  return q > 0 && p > 0 ? q / p : undefined;
}

/**
 * The CPUs this process may use: its affinity's count, or its control group's cap where that is lower.
 * @example availableCpus() // 2 on a 2-CPU VM; 1.5 in a container started with --cpus 1.5
 */
export function availableCpus(): number {
  const limit = cgroupCpuLimit();
  return limit === undefined ? availableParallelism() : Math.min(availableParallelism(), limit);
}
