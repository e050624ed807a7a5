import type { DataType, ModelConfig, TensorSpec } from '@ensemble-studio/core';
import { toConfigType } from '@ensemble-studio/core';
import { InferenceSession } from 'onnxruntime-node';

const ONNX_TYPES: Record<string, DataType> = {
  float32: 'FP32',
  float64: 'FP64',
  float16: 'FP16',
  bfloat16: 'BF16',
  int8: 'INT8',
  uint8: 'UINT8',
  int16: 'INT16',
  uint16: 'UINT16',
  int32: 'INT32',
  uint32: 'UINT32',
  int64: 'INT64',
  uint64: 'UINT64',
  bool: 'BOOL',
  string: 'BYTES',
};

/** The signature of an ONNX file as onnxruntime reports it. Symbolic dims become -1. */
export interface OnnxSignature {
  inputs: TensorSpec[];
  outputs: TensorSpec[];
}

function toSpecs(meta: readonly InferenceSession.ValueMetadata[]): TensorSpec[] {
  return meta.map((m) => {
    if (!m.isTensor) throw new Error(`ONNX value "${m.name}" is not a tensor`);
    const datatype = ONNX_TYPES[m.type];
    if (!datatype) throw new Error(`ONNX value "${m.name}" has unsupported type ${m.type}`);
    return { name: m.name, datatype, dims: m.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : -1)) };
  });
}

/**
 * Reads an ONNX file's inputs/outputs from onnxruntime-node's session metadata.
 * @example const sig = await readOnnxSignature('/repo/vad/1/model.onnx'); sig.inputs[0].dims // [-1, -1]
 */
export async function readOnnxSignature(file: string): Promise<OnnxSignature> {
  const session = await InferenceSession.create(file, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
  });
  try {
    return { inputs: toSpecs(session.inputMetadata), outputs: toSpecs(session.outputMetadata) };
  } finally {
    await session.release();
  }
}

/**
 * The config Triton's auto-complete would derive for an ONNX model without config.pbtxt.
 * A symbolic first dim could be a batch dim, but nothing in the file says so: we assume
 * `max_batch_size: 0` and keep that dim as -1 in `dims` (the user may set batching later).
 * @example configFromOnnx('det', sig).platform === 'onnxruntime_onnx'
 */
export function configFromOnnx(name: string, sig: OnnxSignature): ModelConfig {
  const io = (t: TensorSpec) => ({ name: t.name, data_type: toConfigType(t.datatype), dims: [...t.dims] });
  return {
    name,
    platform: 'onnxruntime_onnx',
    max_batch_size: 0,
    input: sig.inputs.map(io),
    output: sig.outputs.map(io),
  };
}
