/**
 * Tensor data types, spelled as the KServe v2 protocol spells them.
 * The config spelling adds `TYPE_` and says `TYPE_STRING` for `BYTES`.
 */
export const DATA_TYPES = [
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'FP32',
  'FP64',
  'BYTES',
  'BF16',
] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** The config.pbtxt spelling of a data type, e.g. `TYPE_FP32`, `TYPE_STRING`. */
export type ConfigDataType = `TYPE_${Exclude<DataType, 'BYTES'>}` | 'TYPE_STRING';

/** @example toConfigType('BYTES') === 'TYPE_STRING' */
export function toConfigType(t: DataType): ConfigDataType {
  return t === 'BYTES' ? 'TYPE_STRING' : (`TYPE_${t}` as ConfigDataType);
}

/** @example fromConfigType('TYPE_STRING') === 'BYTES'; returns undefined for unknown spellings. */
export function fromConfigType(t: string): DataType | undefined {
  if (t === 'TYPE_STRING') return 'BYTES';
  const bare = t.startsWith('TYPE_') ? t.slice(5) : t;
  return (DATA_TYPES as readonly string[]).includes(bare) && bare !== 'BYTES' ? (bare as DataType) : undefined;
}

export function isDataType(t: unknown): t is DataType {
  return typeof t === 'string' && (DATA_TYPES as readonly string[]).includes(t);
}

/** Bytes per element; BYTES is variable (returns 0). */
export function dtypeSize(t: DataType): number {
  switch (t) {
    case 'BOOL':
    case 'UINT8':
    case 'INT8':
      return 1;
    case 'UINT16':
    case 'INT16':
    case 'FP16':
    case 'BF16':
      return 2;
    case 'UINT32':
    case 'INT32':
    case 'FP32':
      return 4;
    case 'UINT64':
    case 'INT64':
    case 'FP64':
      return 8;
    case 'BYTES':
      return 0;
  }
}

/** numpy dtype name for generated Python. */
export function numpyType(t: DataType): string {
  switch (t) {
    case 'BOOL':
      return 'np.bool_';
    case 'BYTES':
      return 'np.object_';
    case 'FP16':
      return 'np.float16';
    case 'FP32':
      return 'np.float32';
    case 'FP64':
      return 'np.float64';
    case 'BF16':
      return 'np.float32';
    default:
      return `np.${t.toLowerCase()}`;
  }
}
