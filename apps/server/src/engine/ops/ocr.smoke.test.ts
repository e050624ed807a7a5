// The OCR ops against the real PP-OCRv4 models: preprocess → det → db_postprocess → crop_resize →
// rec → ctc_decode on rendered text, plus the cls model on the same 48×W crops.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { decodeImage } from '../../io/index.ts';
import { withExifOrientation } from '../../testing/exifTestUtil.ts';
import { OPS } from './registry.ts';
import { makeFixtures, OCR_ASSETS, OCR_CTX, runModel } from '../../testing/smokeSupport.ts';
import type { Fixtures } from '../../testing/smokeSupport.ts';

let fx: Fixtures;
let det: ort.InferenceSession;
let rec: ort.InferenceSession;
let cls: ort.InferenceSession;

beforeAll(async () => {
  fx = makeFixtures();
  det = await ort.InferenceSession.create(join(OCR_ASSETS, 'ch_PP-OCRv4_det_infer.onnx'));
  rec = await ort.InferenceSession.create(join(OCR_ASSETS, 'ch_PP-OCRv4_rec_infer.onnx'));
  cls = await ort.InferenceSession.create(join(OCR_ASSETS, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'));
});

async function detect(path: string | Uint8Array): Promise<{ image: Tensor; boxes: Tensor }> {
  const image = decodeImage(typeof path === 'string' ? readFileSync(path) : path);
  const pre = OPS.image_preprocess.run({ image }, {}, OCR_CTX);
  const prob = await runModel(det, pre.tensor!);
  const { boxes } = OPS.db_postprocess.run({ prob, shape_info: pre.shape_info! }, {}, OCR_CTX);
  return { image, boxes: boxes! };
}

async function read(path: string | Uint8Array): Promise<{ texts: string[]; crops: Tensor; boxes: Tensor }> {
  const { image, boxes } = await detect(path);
  const crops = OPS.crop_resize.run({ image, boxes }, {}, OCR_CTX).crops!;
  const probs = await runModel(rec, crops);
  return { texts: OPS.ctc_decode.run({ probs }, {}, OCR_CTX).texts!.data as string[], crops, boxes };
}

/** Rotates every crop of [N,3,H,W] by 180°. */
function rotate180(t: Tensor): Tensor {
  const d = t.data as Float32Array;
  const plane = (t.shape[2] ?? 0) * (t.shape[3] ?? 0);
  const out = new Float32Array(d.length);
  for (let p = 0; p < d.length; p += plane) for (let i = 0; i < plane; i++) out[p + i] = d[p + plane - 1 - i] ?? 0;
  return { ...t, data: out };
}

describe('OCR ops with the real PP-OCRv4 models', () => {
  it('the rec model has 6625 classes: 6623 dictionary lines + space + blank', async () => {
    const lines = OCR_CTX.readText()
      .split('\n')
      .filter((l, i, a) => i < a.length - 1 || l !== '');
    expect(lines.length).toBe(6623);
    const { crops } = await read(fx.hello);
    expect((await runModel(rec, crops)).shape[2]).toBe(6625);
  });

  it('reads a rendered text line', async () => {
    const { texts, boxes } = await read(fx.hello);
    expect(texts).toEqual(['HELLO 2026']);
    const [x1, y1, , , x2, y2] = Array.from(boxes.data as Float32Array);
    // The text is drawn from x = 20 with its baseline at y = 100 (56 pt): the box (top-left and
    // bottom-right corners) surrounds it.
    expect(boxes.shape).toEqual([1, 4, 2]);
    expect([x1! < 25, y1! < 62, x2! > 350, y2! > 100]).toEqual([true, true, true, true]);
  });

  it('reads a JPEG stored sideways with an EXIF orientation tag, as a phone saves an upright photo', async () => {
    const stored = new Uint8Array(execFileSync('convert', [fx.hello, '-rotate', '-90', '-quality', '95', 'jpg:-']));
    expect((await read(withExifOrientation(stored, 6, false))).texts).toEqual(['HELLO 2026']);
  });

  it('reads two lines top to bottom', async () => {
    expect((await read(fx.twoLines)).texts).toEqual(['OPEN SOURCE', 'ENSEMBLE 42']);
  });

  it('reads a long line whole: its crop keeps the aspect ratio instead of being squashed into 320 pixels', async () => {
    const { texts, crops } = await read(fx.longLine);
    expect(texts).toEqual(['Ensemble Studio compiles graphs into Triton model repositories 2026']);
    expect(crops.shape[3]).toBeGreaterThan(900);
  });

  it('reads the phrases of one line left to right, though the right one is taller', async () => {
    const { texts, boxes } = await read(fx.row);
    expect(texts).toEqual(['nice sea', 'BIG TOP']);
    const b = boxes.data as Float32Array;
    expect(b[9]! < b[1]!).toBe(true);
  });

  it('reads text turned 10°: the boxes follow the lines and the crops are warped straight', async () => {
    const { texts, boxes } = await read(fx.skewed);
    expect(texts).toEqual(['SKEWED TEXT LINE', 'reads straight 2026']);
    const b = boxes.data as Float32Array;
    // Turned clockwise, each line's top-right corner is lower than its top-left, by about tan 10°.
    for (const i of [0, 1])
      expect((b[i * 8 + 3]! - b[i * 8 + 1]!) / (b[i * 8 + 2]! - b[i * 8]!)).toBeCloseTo(Math.tan(Math.PI / 18), 1);
  });

  it('finds no boxes on a blank image, and crop_resize then yields an empty batch', async () => {
    const { image, boxes } = await detect(fx.blank);
    expect(boxes.shape).toEqual([0, 4, 2]);
    expect(OPS.crop_resize.run({ image, boxes }, {}, OCR_CTX).crops!.shape).toEqual([0, 3, 48, 320]);
  });

  it('the cls model takes the 48×W crops and tells upright from upside-down text', async () => {
    const { crops } = await read(fx.twoLines);
    expect(crops.shape.slice(0, 3)).toEqual([2, 3, 48]);
    const upright = await runModel(cls, crops);
    const flipped = await runModel(cls, rotate180(crops));
    expect(upright.shape).toEqual([2, 2]);
    const top = (t: Tensor) => OPS.topk.run({ scores: t }, { k: 1 }, OCR_CTX).indices!.data as BigInt64Array;
    expect(Array.from(top(upright))).toEqual([0n, 0n]);
    expect(Array.from(top(flipped))).toEqual([1n, 1n]);
  });
});
