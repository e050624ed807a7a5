import type * as ort from 'onnxruntime-node';
import type { TensorLimits } from '../../types.ts';

/** Bytes `t` takes on the wire: its data, or for strings each element's UTF-8 bytes and a 4-byte length (BYTES). */
function wireBytes(t: ort.Tensor): number {
  if (!Array.isArray(t.data)) return (t.data as ArrayBufferView).byteLength;
  let n = 0;
  for (const s of t.data as string[]) n += 4 + Buffer.byteLength(s);
  return n;
}

/**
 * Holds a session's outputs to the server's tensor limits, in the worker that ran it: an output over them is
 * refused here, before its buffer reaches the main thread, with the words the Python backend uses for its own.
 * The element count is checked before the byte count, which for strings reads every element.
 * @throws Error naming the output, the model, its size and the limit
 * @example checkOutputLimits(await session.run(feeds), 'det', { maxTensorElements: 1 << 24, maxBodyBytes: 1 << 26 })
 */
export function checkOutputLimits(
  outputs: Record<string, ort.Tensor>,
  model: string,
  limits: TensorLimits | undefined,
): void {
  if (!limits) return;
  for (const [name, t] of Object.entries(outputs)) {
    const what = `output '${name}' of model '${model}'`;
    const count = t.dims.reduce((n, d) => n * d, 1);
    if (count > limits.maxTensorElements)
      throw new Error(`${what} has ${count} elements, over the limit maxTensorElements=${limits.maxTensorElements}`);
    const bytes = wireBytes(t);
    if (bytes > limits.maxBodyBytes)
      throw new Error(`${what} has ${bytes} bytes, over the limit maxBodyBytes=${limits.maxBodyBytes}`);
  }
}
