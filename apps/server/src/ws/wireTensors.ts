import type { Tensor, WireTensor } from '@ensemble-studio/core';
import { keyedRecord, tensorFromJson, tensorToJson } from '@ensemble-studio/core';
import { tensorFromBytes, tensorToBytes } from '../http/kserveTensors.ts';

/** Tensors with more elements than this travel as binary frames (BYTES always as JSON). */
export const BINARY_THRESHOLD = 4096;

/**
 * Decodes validated wire tensors: JSON `data`, or `binary: i` = the i-th binary frame that followed
 * the message (raw little-endian bytes; BYTES as 4-byte length + UTF-8 per element).
 * @throws Error naming the tensor when sizes do not match or a frame is missing.
 * @example decodeWireTensors({ x: { datatype: 'FP32', shape: [2], data: [1, 2] } }, [])
 */
export function decodeWireTensors(inputs: Record<string, WireTensor>, frames: readonly Uint8Array[]): Record<string, Tensor> {
  const out = keyedRecord<Tensor>();
  for (const [name, w] of Object.entries(inputs)) {
    if (w.binary !== undefined) {
      const frame = frames[w.binary];
      if (!frame) throw new Error(`input "${name}" refers to binary frame ${w.binary} but only ${frames.length} arrived`);
      out[name] = tensorFromBytes(w.datatype, w.shape, frame, name);
    } else {
      out[name] = tensorFromJson(w.datatype, w.shape, w.data ?? []);
    }
  }
  return out;
}

/** How many binary frames a message's inputs refer to (highest index + 1). */
export function binaryFrameCount(inputs: Record<string, WireTensor> | undefined): number {
  let n = 0;
  for (const w of Object.values(inputs ?? {})) if (w.binary !== undefined) n = Math.max(n, w.binary + 1);
  return n;
}

/**
 * Encodes output tensors for the wire: small ones as JSON `data`, large numeric ones as
 * `binary: i` with the bytes in `frames[i]` (sent right after the JSON message).
 * @example const { tensors, frames } = encodeWireTensors(result.outputs)
 */
export function encodeWireTensors(tensors: Record<string, Tensor>, threshold = BINARY_THRESHOLD): { tensors: Record<string, WireTensor>; frames: Uint8Array[] } {
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
