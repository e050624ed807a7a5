import { readFileSync } from 'node:fs';

// Triton's CPU metrics (`nv_cpu_utilization`, `nv_cpu_memory_total_bytes`, `nv_cpu_memory_used_bytes`), read from
// /proc as Triton's metrics server reads them: utilization is the busy share of the aggregate CPU's ticks since the
// previous reading (busy: user, nice, system, irq, softirq, steal; idle: idle, iowait), used memory is MemTotal less
// MemAvailable. Triton polls every 2 s; here each scrape reads, against the reading before it (the first against
// the server's start). Where /proc cannot be read (not Linux), there are no CPU metrics, as in Triton there.

/** The aggregate CPU's tick counters of /proc/stat that utilization needs. */
export interface CpuTicks {
  busy: number;
  idle: number;
}

/** `cpu  user nice system idle iowait irq softirq steal …` (the first line of /proc/stat). */
export function parseCpuTicks(stat: string): CpuTicks | undefined {
  const m = /^cpu\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(stat);
  if (!m) return undefined;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = m.slice(1).map(Number) as number[];
  return { busy: user! + nice! + system! + irq! + softirq! + steal!, idle: idle! + iowait! };
}

/** MemTotal and MemTotal − MemAvailable of /proc/meminfo, in bytes; undefined when either is missing or off. */
export function parseMemory(meminfo: string): { total: number; used: number } | undefined {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(meminfo);
    return m ? Number(m[1]) * 1024 : undefined;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  if (total === undefined || available === undefined || available > total) return undefined;
  return { total, used: total - available };
}

/** Busy share of the ticks between two readings, 0 when none passed (a counter that went back counts as 0). */
export function utilization(now: CpuTicks, before: CpuTicks): number {
  const busy = Math.max(0, now.busy - before.busy);
  const idle = Math.max(0, now.idle - before.idle);
  return busy + idle === 0 ? 0 : busy / (busy + idle);
}

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * A reader of the CPU metrics: `lines()` gives their exposition lines, utilization since the call before.
 * @example const cpu = cpuMetrics(); app.get('/metrics', (_q, r) => r.send(cpu.lines().join('\n')))
 */
export function cpuMetrics(proc = '/proc'): { lines(): string[] } {
  let last = parseCpuTicks(read(`${proc}/stat`) ?? '');
  return {
    lines() {
      const ticks = parseCpuTicks(read(`${proc}/stat`) ?? '');
      const memory = parseMemory(read(`${proc}/meminfo`) ?? '');
      if (!ticks || !memory) return [];
      const util = last ? utilization(ticks, last) : 0;
      last = ticks;
      return [
        '# HELP nv_cpu_utilization CPU utilization rate [0.0 - 1.0]',
        '# TYPE nv_cpu_utilization gauge',
        `nv_cpu_utilization ${util}`,
        '# HELP nv_cpu_memory_total_bytes CPU total memory (RAM), in bytes',
        '# TYPE nv_cpu_memory_total_bytes gauge',
        `nv_cpu_memory_total_bytes ${memory.total}`,
        '# HELP nv_cpu_memory_used_bytes CPU used memory (RAM), in bytes',
        '# TYPE nv_cpu_memory_used_bytes gauge',
        `nv_cpu_memory_used_bytes ${memory.used}`,
      ];
    },
  };
}
