import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { DataType, Tensor } from '@ensemble-studio/core';
import { decodeImage } from './image.ts';
import { decodeJsonTensor } from './json.ts';
import { decodeNpy } from './npy.ts';
import { decodeWav } from './wav.ts';

/** What the consuming input port expects (full shape, −1 = any). */
export interface InputSpec {
  datatype: DataType;
  shape: number[];
}

/** Adds a leading batch dim of 1 when the spec has one more dim whose first is 1 or −1. */
function fitBatch(t: Tensor, spec: InputSpec): Tensor {
  const first = spec.shape[0];
  if (spec.shape.length === t.shape.length + 1 && (first === 1 || first === -1))
    return { ...t, shape: [1, ...t.shape] };
  return t;
}

function check(path: string, t: Tensor, spec: InputSpec): Tensor {
  const fitted = fitBatch(t, spec);
  const shapeOk =
    fitted.shape.length === spec.shape.length && spec.shape.every((d, i) => d === -1 || d === fitted.shape[i]);
  if (fitted.datatype !== spec.datatype || !shapeOk) {
    throw new Error(
      `${path}: holds ${t.datatype} [${t.shape.join(',')}] but the input expects ${spec.datatype} [${spec.shape.join(',')}]`,
    );
  }
  return fitted;
}

/**
 * Reads a file as a tensor by its extension: `.png`/`.jpg`/`.jpeg` → UINT8 [H,W,3];
 * `.wav` → FP32 mono samples [N] (at the file's rate); `.json` → `{datatype?, shape?, data}` or a
 * nested array (dtype from the file, else `spec`, else FP32); `.npy` → its dtype and shape.
 * With `spec`, a missing leading batch dim of 1 is added and dtype/shape are checked.
 * @throws Error naming the file for unknown extensions, undecodable data or a spec mismatch.
 * @example await readInputFile('examples/data/hello.png', { datatype: 'UINT8', shape: [-1, -1, 3] })
 */
export async function readInputFile(path: string, spec?: InputSpec): Promise<Tensor> {
  const bytes = new Uint8Array(await readFile(path));
  const ext = extname(path).toLowerCase();
  let t: Tensor;
  try {
    if (ext === '.png' || ext === '.jpg' || ext === '.jpeg') t = decodeImage(bytes);
    else if (ext === '.wav') {
      const samples = decodeWav(bytes).samples;
      t = { datatype: 'FP32', shape: [samples.length], data: samples };
    } else if (ext === '.json') t = decodeJsonTensor(new TextDecoder().decode(bytes), spec?.datatype);
    else if (ext === '.npy') t = decodeNpy(bytes);
    else throw new Error(`unsupported file type '${ext}' (use .png, .jpg, .wav, .json or .npy)`);
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}`, { cause: e });
  }
  return spec === undefined ? t : check(path, t, spec);
}
