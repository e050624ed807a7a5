import { describe, expect, it } from 'vitest';
import { splitBatch } from './batchTensors.ts';
import { ownsWholeBuffer } from './tensorTransfer.ts';

describe('splitBatch', () => {
  const t = { datatype: 'FP32' as const, shape: [3, 2], data: Float32Array.of(1, 2, 3, 4, 5, 6) };
  it('copies rows into buffers of their own, or views the batch without allocating', () => {
    const copies = splitBatch(t, [1, 2]);
    const views = splitBatch(t, [1, 2], 'view');
    for (const parts of [copies, views]) {
      expect(parts.map((p) => p.shape)).toEqual([
        [1, 2],
        [2, 2],
      ]);
      expect(parts.map((p) => [...(p.data as Float32Array)])).toEqual([
        [1, 2],
        [3, 4, 5, 6],
      ]);
    }
    expect(copies.every((p) => ownsWholeBuffer(p.data))).toBe(true);
    expect(views.every((p) => (p.data as Float32Array).buffer === t.data.buffer && !ownsWholeBuffer(p.data))).toBe(
      true,
    );
    expect(() => splitBatch(t, [1, 1])).toThrow(/batch of 3 into 2 rows/);
  });
});
