import { execFileSync } from 'node:child_process';
import type { Tensor } from '@ensemble-studio/core';
import { Engine } from '../src/engine/index.ts';
import { makeTestRepository } from '../src/engine/fixtures.ts';
import { ocrGraph } from '../src/engine/graphs.ts';
const [w, h] = [640, 160];
const raw = execFileSync('convert', ['-size', `${w}x${h}`, 'xc:white', '-fill', 'black', '-pointsize', '48', '-annotate', '+20+100', 'Hello World 2024', '-depth', '8', 'rgb:-']);
const image: Tensor = { datatype: 'UINT8', shape: [h, w, 3], data: new Uint8Array(raw) };
const blank: Tensor = { datatype: 'UINT8', shape: [h, w, 3], data: new Uint8Array(w * h * 3).fill(255) };
const repo = makeTestRepository(['det', 'rec', 'cls']);
const engine = await Engine.create({ repository: repo });
const g = ocrGraph('gate');
for (const [name, img] of [['text', image], ['blank', blank]] as const) {
  const rows: Record<string, number[][]> = {};
  const walls: number[] = [];
  for (let i = 0; i < 40; i++) {
    const t0 = performance.now();
    const r = await engine.run({ graph: g, inputs: { image: img } });
    walls.push(performance.now() - t0);
    if (i < 20) continue;
    for (const t of r.timings) { (rows[t.nodeId] ??= []).push([t.startMs, t.endMs, t.queueMs, t.computeMs]); (rows[t.nodeId] as any).inst = t.instance; }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${name}: wall median ${med(walls.slice(20)).toFixed(2)}`);
  for (const [id, xs] of Object.entries(rows)) console.log(`  ${id.padEnd(12)} start ${med(xs.map((x) => x[0]!)).toFixed(2).padStart(7)} end ${med(xs.map((x) => x[1]!)).toFixed(2).padStart(7)} queue ${med(xs.map((x) => x[2]!)).toFixed(2)} compute ${med(xs.map((x) => x[3]!)).toFixed(2)} on ${(xs as any).inst}`);
}
await engine.close();
process.exit(0);
