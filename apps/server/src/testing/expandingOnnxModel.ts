import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeModel, ONNX_TYPES } from '../onnx/onnxModel.ts';

/**
 * Writes `<dir>/<name>`: an ONNX model whose FP32 output OUT is as large as its INT64 input SHAPE says
 * (ConstantOfShape: a one-element input can ask for any size), to see what the server does with a model output
 * far larger than the request that asked for it.
 * @example writeExpandingOnnxModel(dir, 'expand'); // SHAPE [1001] → OUT of 1001 zeros
 */
export function writeExpandingOnnxModel(dir: string, name: string): void {
  const model = encodeModel({
    name,
    nodes: [{ opType: 'ConstantOfShape', inputs: ['SHAPE'], outputs: ['OUT'] }],
    inputs: [{ name: 'SHAPE', elemType: ONNX_TYPES.INT64, dims: ['rank'] }],
    outputs: [{ name: 'OUT', elemType: ONNX_TYPES.FLOAT, dims: ['n'] }],
    initializers: [],
  });
  mkdirSync(join(dir, name, '1'), { recursive: true });
  writeFileSync(join(dir, name, '1', 'model.onnx'), model);
  writeFileSync(
    join(dir, name, 'config.pbtxt'),
    `name: "${name}"
platform: "onnxruntime_onnx"
max_batch_size: 0
input [ { name: "SHAPE" data_type: TYPE_INT64 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`,
  );
}
