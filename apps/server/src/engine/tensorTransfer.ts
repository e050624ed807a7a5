import type { Tensor, TensorData, TensorSummary } from '@ensemble-studio/core';
import type { PortableTensor } from './backends/onnx/workerProtocol.ts';
import { rememberSummary } from './tensorSummary.ts';

/** A copy of a tensor's data (a fresh buffer this thread owns). */
export function copyData(data: TensorData): TensorData {
  return Array.isArray(data) ? [...data] : (data as Float32Array).slice();
}

/** Whether a typed array spans its whole ArrayBuffer (so the buffer may be transferred alone). */
export function ownsWholeBuffer(data: TensorData): boolean {
  if (Array.isArray(data)) return false;
  const v = data as Float32Array;
  return v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && !(v.buffer instanceof SharedArrayBuffer);
}

const OWNED = new WeakSet<object>();

/** Marks a tensor's buffer as created by the engine (a worker result or a batch), so it may be transferred. */
export function markOwned<T extends Tensor>(t: T): T {
  if (!Array.isArray(t.data)) OWNED.add(t.data);
  return t;
}

/** Whether the engine created this tensor's buffer (caller inputs are never transferred away). */
export function isOwned(t: Tensor): boolean {
  return !Array.isArray(t.data) && OWNED.has(t.data);
}

/**
 * A worker's result outputs as this thread's tensors: owned (their buffers came by transfer, so they
 * may move on) and with the summaries the worker made for them.
 * @example const outputs = receivedOutputs(poolResult.result)
 */
export function receivedOutputs(r: {
  outputs: Record<string, Tensor>;
  summaries: Record<string, TensorSummary>;
}): Record<string, Tensor> {
  const outputs: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(r.outputs))
    outputs[name] = rememberSummary(
      markOwned({ datatype: t.datatype, shape: t.shape, data: t.data }),
      r.summaries[name],
    );
  return outputs;
}

/**
 * Tensors for postMessage: each buffer moves when `canTransfer` allows it and the tensor spans it,
 * else goes as a fresh copy; both kinds are listed in `transfer`.
 */
export function portableFeeds(
  feeds: Record<string, Tensor>,
  canTransfer: ((t: Tensor) => boolean) | undefined,
): { portable: Record<string, PortableTensor>; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const portable: Record<string, PortableTensor> = {};
  for (const [name, t] of Object.entries(feeds)) portable[name] = toPortable(t, canTransfer?.(t) === true, transfer);
  return { portable, transfer };
}

function toPortable(t: Tensor, mayMove: boolean, transfer: ArrayBuffer[]): PortableTensor {
  if (Array.isArray(t.data)) return { datatype: t.datatype, shape: [...t.shape], data: t.data };
  const data =
    mayMove && ownsWholeBuffer(t.data) && !transfer.includes((t.data as Float32Array).buffer as ArrayBuffer)
      ? t.data
      : copyData(t.data);
  transfer.push((data as Float32Array).buffer as ArrayBuffer);
  return { datatype: t.datatype, shape: [...t.shape], data };
}
