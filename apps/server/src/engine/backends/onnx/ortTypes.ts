import type { DataType } from '@ensemble-studio/core';

/** onnxruntime's element type name for each protocol data type (BF16 is not supported by ORT). */
export const ORT_TYPES: Partial<Record<DataType, string>> = {
  BOOL: 'bool',
  UINT8: 'uint8',
  UINT16: 'uint16',
  UINT32: 'uint32',
  UINT64: 'uint64',
  INT8: 'int8',
  INT16: 'int16',
  INT32: 'int32',
  INT64: 'int64',
  FP16: 'float16',
  FP32: 'float32',
  FP64: 'float64',
  BYTES: 'string',
};

/** Protocol data type of an onnxruntime element type name. */
export function fromOrtType(t: string): DataType | undefined {
  for (const [k, v] of Object.entries(ORT_TYPES)) if (v === t) return k as DataType;
  return undefined;
}
