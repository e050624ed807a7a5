import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/tempDir.ts';
import { cpuMetrics, parseCpuTicks, parseMemory, utilization } from './cpuMetrics.ts';

const STAT = (user: number, idle: number) =>
  `cpu  ${user} 10 20 ${idle} 5 0 3 2 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\n`;
const MEMINFO = 'MemTotal:       24683664 kB\nMemFree:        1000 kB\nMemAvailable:   24038800 kB\n';

describe('CPU metrics', () => {
  it("reads /proc/stat's aggregate line and /proc/meminfo as Triton does", () => {
    expect(parseCpuTicks(STAT(100, 400))).toEqual({ busy: 100 + 10 + 20 + 0 + 3 + 2, idle: 400 + 5 });
    expect(parseCpuTicks('intr 1\n')).toBeUndefined();
    expect(parseMemory(MEMINFO)).toEqual({ total: 24683664 * 1024, used: (24683664 - 24038800) * 1024 });
    expect(parseMemory('MemTotal: 10 kB\n')).toBeUndefined();
    expect(parseMemory('MemTotal: 10 kB\nMemAvailable: 20 kB\n')).toBeUndefined();
    expect(utilization({ busy: 150, idle: 450 }, { busy: 100, idle: 300 })).toBe(0.25);
    expect(utilization({ busy: 100, idle: 300 }, { busy: 100, idle: 300 })).toBe(0);
    expect(utilization({ busy: 90, idle: 400 }, { busy: 100, idle: 300 })).toBe(0);
  });

  it('gives the busy share since the reading before, and no lines where /proc cannot be read', () => {
    const proc = tempDir('cpu-metrics-');
    writeFileSync(join(proc, 'stat'), STAT(100, 400));
    writeFileSync(join(proc, 'meminfo'), MEMINFO);
    const cpu = cpuMetrics(proc);
    writeFileSync(join(proc, 'stat'), STAT(130, 490));
    expect(cpu.lines()).toEqual([
      '# HELP nv_cpu_utilization CPU utilization rate [0.0 - 1.0]',
      '# TYPE nv_cpu_utilization gauge',
      'nv_cpu_utilization 0.25',
      '# HELP nv_cpu_memory_total_bytes CPU total memory (RAM), in bytes',
      '# TYPE nv_cpu_memory_total_bytes gauge',
      `nv_cpu_memory_total_bytes ${24683664 * 1024}`,
      '# HELP nv_cpu_memory_used_bytes CPU used memory (RAM), in bytes',
      '# TYPE nv_cpu_memory_used_bytes gauge',
      `nv_cpu_memory_used_bytes ${(24683664 - 24038800) * 1024}`,
    ]);
    expect(cpu.lines()[2]).toBe('nv_cpu_utilization 0');
    const none = join(proc, 'none');
    mkdirSync(none);
    expect(cpuMetrics(none).lines()).toEqual([]);
  });
});
