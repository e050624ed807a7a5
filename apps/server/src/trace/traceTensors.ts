import { elementCount, type Tensor } from '@ensemble-studio/core';

/** Past this many elements a tensor's data is left out of its trace record (`"truncated":true`). */
export const MAX_TRACED_ELEMENTS = 1 << 20;

/**
 * A `TENSORS` trace record of `t`, as Triton writes it: its elements joined by commas (floats as C++ streams them,
 * six significant digits; booleans 1 or 0; strings quoted), its shape and datatype. FP16 and BF16 data are left
 * empty, as Triton leaves them.
 * @example tensorRecord(3, 'TENSOR_QUEUE_INPUT', 'x', t) // {"id":3,"activity":"TENSOR_QUEUE_INPUT","tensor":{…}}
 */
export function tensorRecord(id: number, activity: string, name: string, t: Tensor): string {
  const count = elementCount(t.shape);
  const truncated = count > MAX_TRACED_ELEMENTS;
  const data = truncated ? '' : tensorData(t);
  const tensor = { name, data, shape: t.shape.join(','), dtype: t.datatype, ...(truncated ? { truncated } : {}) };
  return `{"id":${id},"activity":"${activity}","tensor":${JSON.stringify(tensor)}}`;
}

function tensorData(t: Tensor): string {
  const d = t.data as ArrayLike<unknown>;
  if (t.datatype === 'FP16' || t.datatype === 'BF16') return '';
  if (t.datatype === 'BYTES') return Array.from(d, (s) => `"${bytesText(s)}"`).join(',');
  if (t.datatype === 'BOOL') return Array.from(d, (b) => (b ? '1' : '0')).join(',');
  if (t.datatype === 'FP32' || t.datatype === 'FP64') return Array.from(d as ArrayLike<number>, streamFloat).join(',');
  return Array.from(d, String).join(',');
}

function bytesText(s: unknown): string {
  return typeof s === 'string' ? s : Buffer.from(s as Uint8Array).toString('utf8');
}

/**
 * A number as C++'s `ostream <<` writes a float or double by default (`%g`, six significant digits).
 * @example streamFloat(0.1) // "0.1"; streamFloat(1e-7) // "1e-07"; streamFloat(1234567) // "1.23457e+06"
 */
export function streamFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const exp = Number(x.toExponential(5).split('e')[1]);
  if (exp < -4 || exp >= 6) {
    const [mantissa, e] = x.toExponential(5).split('e') as [string, string];
    const n = Number(e);
    return `${trimZeros(mantissa)}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return trimZeros(x.toFixed(Math.max(0, 5 - exp)));
}

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}
