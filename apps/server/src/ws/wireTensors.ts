import type { Tensor, WireTensor } from '@ensemble-studio/core';
import { dtypeSize, elementCount, keyedRecord, tensorFromJson, tensorToJson } from '@ensemble-studio/core';
import { tensorFromBytes, tensorToBytes } from '../http/kserveTensors.ts';

/** Tensors with more elements than this travel as binary frames (BYTES always as JSON). */
const BINARY_THRESHOLD = 4096;

/**
 * Decodes validated wire tensors: JSON `data`, or `binary: i` = the i-th binary frame that followed
 * the message (raw little-endian bytes; BYTES as 4-byte length + UTF-8 per element). Inputs found in
 * `decoded` (decoded while the message was parsed) are taken from there.
 * @throws Error naming the tensor when sizes do not match or a frame is missing.
 * @example decodeWireTensors({ x: { datatype: 'FP32', shape: [2], data: [1, 2] } }, [])
 */
export function decodeWireTensors(
  inputs: Record<string, WireTensor>,
  frames: readonly Uint8Array[],
  decoded?: Readonly<Record<string, Tensor>>,
): Record<string, Tensor> {
  const out = keyedRecord<Tensor>();
  for (const [name, w] of Object.entries(inputs)) {
    const done = decoded && Object.hasOwn(decoded, name) ? decoded[name] : undefined;
    if (done) {
      out[name] = done;
    } else if (w.binary !== undefined) {
      const frame = frames[w.binary];
      if (!frame)
        throw new Error(`input "${name}" refers to binary frame ${w.binary} but only ${frames.length} arrived`);
      out[name] = tensorFromBytes(w.datatype, w.shape, frame, name);
    } else {
      // Elements were checked with the message (validateClientMessage), before any decoding.
      out[name] = tensorFromJson(w.datatype, w.shape, w.data ?? []);
    }
  }
  return out;
}

/**
 * How many binary frames a message's inputs announce: each input with `binary: i` takes frame i, and
 * the indices must be 0..n-1, each used once, so a message can never announce more frames than it
 * has inputs (`binary: 100000` would otherwise hold the connection open for 100001 frames).
 * @throws Error naming the index that does not fit.
 * @example binaryFrameCount({ a: { datatype: 'FP32', shape: [9999], binary: 0 } }) === 1
 */
export function binaryFrameCount(inputs: Record<string, WireTensor> | undefined): number {
  const used = Object.entries(inputs ?? {}).filter(([, w]) => w.binary !== undefined);
  const seen = new Set<number>();
  for (const [name, w] of used) {
    if (w.binary! >= used.length)
      throw new Error(
        `input "${name}" refers to binary frame ${w.binary} but the message announces ${used.length} binary input(s), numbered from 0`,
      );
    if (seen.has(w.binary!))
      throw new Error(`input "${name}" refers to binary frame ${w.binary}, which another input already uses`);
    seen.add(w.binary!);
  }
  return used.length;
}

/**
 * The byte size a binary frame must have for the input that refers to it (undefined for BYTES,
 * whose elements have their own lengths).
 * @example expectedFrameBytes({ datatype: 'FP32', shape: [2, 3], binary: 0 }) === 24
 */
export function expectedFrameBytes(w: WireTensor): number | undefined {
  return w.datatype === 'BYTES' ? undefined : elementCount(w.shape) * dtypeSize(w.datatype);
}

/**
 * Encodes output tensors for the wire: small ones as JSON `data`, large numeric ones as
 * `binary: i` with the bytes in `frames[i]` (sent right after the JSON message).
 * @example const { tensors, frames } = encodeWireTensors(result.outputs)
 */
export function encodeWireTensors(
  tensors: Record<string, Tensor>,
  threshold = BINARY_THRESHOLD,
): { tensors: Record<string, WireTensor>; frames: Uint8Array[] } {
  const out: Record<string, WireTensor> = {};
  const frames: Uint8Array[] = [];
  for (const [name, t] of Object.entries(tensors)) {
    if (!Array.isArray(t.data) && t.data.length > threshold) {
      out[name] = { datatype: t.datatype, shape: [...t.shape], binary: frames.length };
      frames.push(tensorToBytes(t));
    } else {
      out[name] = { datatype: t.datatype, shape: [...t.shape], data: tensorToJson(t) };
    }
  }
  return { tensors: out, frames };
}
