import type { DataType } from '@ensemble-studio/core';

/** One colour per dtype family so a mismatch is visible before the drop. */
const DTYPE_COLORS: Record<DataType, string> = {
  FP32: '#4c9dff',
  FP16: '#36c5f0',
  BF16: '#36c5f0',
  FP64: '#2a6fd6',
  INT64: '#b57bff',
  INT32: '#9a6bff',
  INT16: '#8660e0',
  INT8: '#7458c8',
  UINT8: '#ff9f43',
  UINT16: '#f0883e',
  UINT32: '#e07a3a',
  UINT64: '#d06d36',
  BYTES: '#3ecf8e',
  BOOL: '#ff6b9a',
};

const UNTYPED_COLOR = '#8a8f98';

/** The colour of a port's dtype; grey while it is still inferred. */
export const dtypeColor = (t: DataType | null | undefined): string => (t ? DTYPE_COLORS[t] : UNTYPED_COLOR);
