import { elementCount } from '@ensemble-studio/core';
import type { TensorLimits } from '../../types.ts';
import { FrameRefused, type FrameTensor } from './frames.ts';

/** Header fields of a stub's frames that list tensors: a response's outputs, a BLS call's inputs. */
const TENSOR_LISTS = ['outputs', 'inputs'];

const align8 = (n: number): number => (n + 7) & ~7;

/** A tensor as a refusal names it (made only for a refusal: a frame's check runs on every response). */
const what = (key: string, t: FrameTensor): string => `${key === 'outputs' ? 'output' : 'input'} '${String(t.name)}'`;

/**
 * The check a python stub's frame headers get before their blobs are gathered: each tensor within `limits`,
 * and a blob no larger than the tensors it holds. The stub holds what it sends to the same limits, so a frame
 * refused here comes from a stub that was bypassed (model code writing to its pipe) or broken.
 * @example new FrameReader(frameCheck({ maxTensorElements: 1 << 24, maxBodyBytes: 1 << 26 }))
 */
export function frameCheck(limits: TensorLimits | undefined): (header: Record<string, unknown>, blob: number) => void {
  return (header, blobBytes) => {
    let described = 0;
    for (const key of TENSOR_LISTS) {
      const list = header[key];
      if (!Array.isArray(list)) continue;
      for (const t of list as FrameTensor[]) {
        const nbytes = Number(t.nbytes);
        if (!Number.isSafeInteger(nbytes) || nbytes < 0 || !Array.isArray(t.shape))
          throw new FrameRefused(`sent ${what(key, t)} without a valid shape and byte count`);
        if (limits) {
          const n = elementCount(t.shape);
          if (!(n <= limits.maxTensorElements))
            throw new FrameRefused(
              `sent ${what(key, t)} of ${n} elements, over the limit maxTensorElements=${limits.maxTensorElements}`,
            );
          if (nbytes > limits.maxBodyBytes)
            throw new FrameRefused(
              `sent ${what(key, t)} of ${nbytes} bytes, over the limit maxBodyBytes=${limits.maxBodyBytes}`,
            );
        }
        if (t.region === undefined) described += align8(nbytes);
        else if (!Number.isSafeInteger(t.region) || t.region < 0)
          throw new FrameRefused(`sent ${what(key, t)} at an invalid region offset`);
      }
    }
    if (blobBytes > described)
      throw new FrameRefused(`sent a frame of ${blobBytes} bytes of tensor data for tensors of ${described} bytes`);
  };
}
