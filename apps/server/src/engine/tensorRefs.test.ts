import { describe, expect, it } from 'vitest';
import type { Tensor } from '@ensemble-studio/core';
import { TensorRefs } from './tensorRefs.ts';
import { markOwned } from './tensorTransfer.ts';

const owned = (): Tensor => markOwned({ datatype: 'FP32', shape: [2], data: new Float32Array(2) });

describe('TensorRefs', () => {
  it('lets the last of two consumers handing a buffer to workers move it', () => {
    const refs = new TensorRefs();
    const crops = owned();
    refs.add(crops, 2);
    expect(refs.canTransfer(crops)).toBe(false);
    expect(refs.canTransfer(crops)).toBe(true);
  });

  it('never moves a buffer that a consumer still reads on this thread', () => {
    const refs = new TensorRefs();
    const t = owned();
    refs.add(t, 3); // two worker consumers and one inline op
    expect(refs.canTransfer(t)).toBe(false); // the first worker consumer copies
    expect(refs.canTransfer(t)).toBe(false); // the inline op still reads it: the second copies too
    refs.release({ x: t });
    refs.release({ x: t });
    refs.release({ x: t });
    refs.add(t, 1); // a later iteration publishes the same buffer to one consumer
    expect(refs.canTransfer(t)).toBe(true);
  });

  it('moves a buffer its only consumer hands over once the others have finished', () => {
    const refs = new TensorRefs();
    const t = owned();
    refs.add(t, 2);
    refs.release({ x: t });
    expect(refs.canTransfer(t)).toBe(true);
  });

  it('never moves a buffer the engine did not make (a caller input)', () => {
    const refs = new TensorRefs();
    const image: Tensor = { datatype: 'UINT8', shape: [1], data: new Uint8Array(1) };
    refs.add(image, 1);
    expect(refs.canTransfer(image)).toBe(false);
  });
});
