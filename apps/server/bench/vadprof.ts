import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { Tensor } from '@ensemble-studio/core';
import { Engine } from '../src/engine/index.ts';
import { makeTestRepository } from '../src/engine/fixtures.ts';
import { vadGraph } from '../src/engine/graphs.ts';
import { mulberry32 } from '../src/onnx/synthetic.ts';
const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]!; };
let gcTotal = 0; let gcMax = 0; let gcN = 0;
new PerformanceObserver((l) => { for (const e of l.getEntries()) { if (process.env.GCLOG) console.log('gc kind', (e as any).detail?.kind, e.duration.toFixed(2)); gcTotal += e.duration; gcMax = Math.max(gcMax, e.duration); gcN++; } }).observe({ entryTypes: ['gc'] });
function threads(): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try { const st = readFileSync(`/proc/self/task/${t}/stat`, 'utf8'); const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')); const f = st.slice(st.lastIndexOf(')') + 2).split(' '); m.set(`${t}:${comm}`, Number(f[11]) + Number(f[12])); } catch {}
  }
  return m;
}
import { realConfigs } from '../src/engine/fixtures.ts';
const base = realConfigs().vad!;
const inst = Number(process.env.VAD_INST ?? 2); const delay = Number(process.env.VAD_DELAY ?? 0);
const repo = makeTestRepository(['vad'], { vad: { instance_group: [{ count: inst, kind: 'KIND_CPU' }], sequence_batching: { ...base.sequence_batching, oldest: { ...base.sequence_batching!.oldest, max_queue_delay_microseconds: delay } } } });
const engine = await Engine.create({ repository: repo, maxConcurrentRuns: 1024 });
const graph = vadGraph();
for (const streams of (process.argv[2] ?? '20,40,80').split(',').map(Number)) {
  const chunks = 40; const period = 32;
  const audio = Array.from({ length: streams }, (_, s) => { const r = mulberry32(s + 1); return Float32Array.from({ length: 576 * chunks }, () => (r() - 0.5) * 0.2); });
  const lat: number[] = []; const sched: number[] = []; let computeSum = 0;
  const lag = monitorEventLoopDelay({ resolution: 1 }); lag.enable();
  gcTotal = 0; gcMax = 0; gcN = 0;
  const insp = process.env.PROF ? new Session() : undefined;
  if (insp) { insp.connect(); await insp.post('Profiler.enable'); await insp.post('Profiler.start'); }
  const th0 = threads();
  const cpu0 = process.cpuUsage(); const w0 = now();
  const t0 = now() + 50;
  await Promise.all(Array.from({ length: streams }, async (_, s) => {
    const offset = (s * period) / streams;
    for (let k = 0; k < chunks; k++) {
      const due = t0 + offset + k * period;
      await sleep(due - now());
      sched.push(now() - due);
      const r = await engine.run({ graph, inputs: { audio: { datatype: 'FP32', shape: [576], data: audio[s]!.subarray(576 * k, 576 * (k + 1)) } as Tensor }, sequence: { id: `p-${streams}-${s}`, start: k === 0, end: k === chunks - 1 } });
      if (r.status !== 'completed') throw new Error(JSON.stringify(r.error));
      const vt = r.timings.find((t) => t.nodeId === 'vad')!; computeSum += vt.computeMs / (vt.batchSize ?? 1);
      lat.push(now() - due);
    }
  }));
  lag.disable();
  const cpu = process.cpuUsage(cpu0); const wall = now() - w0;
  console.log(`${streams} streams: lat p50 ${pct(lat, .5).toFixed(2)} p90 ${pct(lat, .9).toFixed(2)} p99 ${pct(lat, .99).toFixed(2)} max ${pct(lat, 1).toFixed(2)} | timer late p99 ${pct(sched, .99).toFixed(2)} | loop lag p99 ${(lag.percentile(99) / 1e6).toFixed(2)} max ${(lag.max / 1e6).toFixed(2)} | gc n ${gcN} total ${gcTotal.toFixed(1)} max ${gcMax.toFixed(1)} | proc cpu ${(((cpu.user + cpu.system) / 1000) / wall * 100).toFixed(0)}% main+workers | cpu/chunk ${(((cpu.user + cpu.system) / 1000) / lat.length).toFixed(3)} ms`);
  const th1 = threads();
  if (insp) { const { profile } = await insp.post('Profiler.stop'); writeFileSync(`/tmp/prof/level-${streams}.cpuprofile`, JSON.stringify(profile)); }
  console.log(`  model compute ${(computeSum / (wall / 1000)).toFixed(0)} ms/s`);
  console.log('  threads (ms cpu per s):', [...th1].map(([k, v]) => [k, ((v - (th0.get(k) ?? 0)) * 10) / (wall / 1000)] as const).filter(([, v]) => v > 5).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k}=${v.toFixed(0)}`).join(' '));
  const m = engine.metrics().models;
  console.log('  batch sizes', JSON.stringify(Object.values(m)[0]?.batchSizes));
}
await engine.close();
process.exit(0);
