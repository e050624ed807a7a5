// What every scenario of the bench shares: the engine, the direct sessions it is compared with, the report,
// and how many blocks and trials to run.
import { execFileSync } from 'node:child_process';
import type * as ort from 'onnxruntime-node';
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import type { Engine } from '../src/engine/index.ts';
import type { Repository } from '../src/repo/types.ts';
import type { BenchReport } from './report.ts';

export interface BenchContext {
  engine: Engine;
  repo: Repository;
  /** The same models' sessions, created like the engine's, for the direct loops. */
  direct: Record<string, ort.InferenceSession>;
  report: BenchReport;
  log: (line: string) => void;
  quick: boolean;
  /** Blocks per measurement (at least 3). */
  blocks: number;
  /** The OCR text image. */
  image: Tensor;
}

/**
 * One engine run that must not fail (an early exit is fine).
 * @example await runOk(engine, ocrGraph('gate'), { image });
 */
export async function runOk(
  engine: Engine,
  graph: GraphDoc,
  inputs: Record<string, Tensor>,
  sequence?: { id: number | string; start: boolean; end: boolean },
) {
  const r = await engine.run({ graph, inputs, sequence });
  if (r.status === 'failed') throw new Error(`${graph.name}: ${r.error?.code} ${r.error?.message}`);
  return r;
}

/** A printed-text image rendered with ImageMagick (UINT8 HWC), or dark bars where it is missing. */
export function textImage(): Tensor {
  const [w, h] = [640, 160];
  try {
    const raw = execFileSync(
      'convert',
      [
        '-size',
        `${w}x${h}`,
        'xc:white',
        '-fill',
        'black',
        '-font',
        'DejaVu-Sans',
        '-pointsize',
        '48',
        '-annotate',
        '+20+100',
        'Hello World 2024',
        '-depth',
        '8',
        'rgb:-',
      ],
      { maxBuffer: 1 << 24 },
    );
    return { datatype: 'UINT8', shape: [h, w, 3], data: new Uint8Array(raw) };
  } catch {
    const data = new Uint8Array(w * h * 3).fill(255);
    for (let y = 60; y < 100; y++)
      for (let x = 20; x < 600; x++) if ((x >> 3) % 3 !== 0) data.fill(0, (y * w + x) * 3, (y * w + x) * 3 + 3);
    return { datatype: 'UINT8', shape: [h, w, 3], data };
  }
}
