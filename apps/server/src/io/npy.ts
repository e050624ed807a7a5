import type { DataType, Tensor, TensorData } from '@ensemble-studio/core';
import { allocData, dtypeSize, elementCount } from '@ensemble-studio/core';

/** numpy descr (little-endian or byte-order free) → tensor dtype. */
const DESCRS: Record<string, DataType> = {
  '|b1': 'BOOL',
  '|u1': 'UINT8',
  '|i1': 'INT8',
  '<u1': 'UINT8',
  '<i1': 'INT8',
  '<u2': 'UINT16',
  '<i2': 'INT16',
  '<u4': 'UINT32',
  '<i4': 'INT32',
  '<u8': 'UINT64',
  '<i8': 'INT64',
  '<f2': 'FP16',
  '<f4': 'FP32',
  '<f8': 'FP64',
};

interface Header {
  descr: string;
  fortran: boolean;
  shape: number[];
}

function parseHeader(text: string): Header {
  const descr = /'descr':\s*'([^']+)'/.exec(text)?.[1];
  const fortran = /'fortran_order':\s*(True|False)/.exec(text)?.[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(text)?.[1];
  if (descr === undefined || fortran === undefined || shape === undefined)
    throw new Error(`decodeNpy: bad header ${JSON.stringify(text.trim())}`);
  const dims = shape
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(Number);
  if (dims.some((d) => !Number.isInteger(d) || d < 0)) throw new Error(`decodeNpy: bad shape (${shape})`);
  return { descr, fortran: fortran === 'True', shape: dims };
}

/** Fixed-width byte (`|S`) or UTF-32 (`<U`) strings → BYTES, trailing NULs stripped. */
function decodeStrings(h: Header, body: Uint8Array): string[] | undefined {
  const m = /^([|<])([SU])(\d+)$/.exec(h.descr);
  if (m === null) return undefined;
  const width = Number(m[3]) * (m[2] === 'U' ? 4 : 1);
  const n = elementCount(h.shape);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const cell = body.subarray(i * width, (i + 1) * width);
    const s =
      m[2] === 'U' ? String.fromCodePoint(...new Uint32Array(cell.slice().buffer)) : new TextDecoder().decode(cell);
    out.push(s.replace(/\0+$/, ''));
  }
  return out;
}

/**
 * Reads a `.npy` file (format 1.0–3.0, C order, little-endian numbers, `|S`/`<U` strings as BYTES).
 * @throws Error `decodeNpy: …` for a bad magic, header, Fortran order, big-endian or unknown dtype.
 * @example decodeNpy(readFileSync('x.npy')).shape // [2, 3]
 */
export function decodeNpy(bytes: Uint8Array): Tensor {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || !magic.every((b, i) => bytes[i] === b)) throw new Error('decodeNpy: not a .npy file');
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = bytes[6] ?? 0;
  const headerLen = major === 1 ? v.getUint16(8, true) : v.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const h = parseHeader(
    new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLen)),
  );
  if (h.fortran)
    throw new Error('decodeNpy: Fortran-ordered arrays are not supported (save with np.ascontiguousarray)');
  const body = bytes.subarray(start + headerLen);
  const strings = decodeStrings(h, body);
  if (strings !== undefined) return { datatype: 'BYTES', shape: h.shape, data: strings };
  const datatype = DESCRS[h.descr];
  if (datatype === undefined)
    throw new Error(`decodeNpy: unsupported dtype '${h.descr}' (little-endian numbers or strings only)`);
  const n = elementCount(h.shape);
  const size = dtypeSize(datatype);
  if (body.length < n * size)
    throw new Error(`decodeNpy: data is ${body.length} bytes, shape [${h.shape.join(',')}] needs ${n * size}`);
  const data = allocData(datatype, n) as Exclude<TensorData, string[]>;
  new Uint8Array(data.buffer).set(body.subarray(0, n * size));
  return { datatype, shape: h.shape, data };
}
