import type { Tensor } from '@ensemble-studio/core';
import { dim, input, num, resolveValues } from './check.ts';
import type { OpImpl } from './opTypes.ts';

/**
 * Top-k of each row of FP32 [N,C]: values FP32 [N,k] in descending order and their indices INT64
 * [N,k]; ties keep the lower index first; NaN ranks below every number (−∞ ties broken by index).
 */
export const topk: OpImpl = {
  id: 'topk',
  run(inputs, values) {
    const v = resolveValues('topk', values);
    const scores = input('topk', inputs, 'scores', 'FP32', 2);
    const [n, c] = [dim(scores, 0), dim(scores, 1)];
    const k = num(v, 'k');
    if (k > c) throw new Error(`topk: k = ${k} exceeds the ${c} columns of input 'scores'`);
    const data = scores.data as Float32Array;
    const outV = new Float32Array(n * k);
    const outI = new BigInt64Array(n * k);
    const key = (x: number) => (Number.isNaN(x) ? -Infinity : x);
    for (let i = 0; i < n; i++) {
      const row = data.subarray(i * c, (i + 1) * c);
      const order = Array.from({ length: c }, (_, j) => j);
      order.sort((a, b) => key(row[b] ?? 0) - key(row[a] ?? 0) || a - b);
      for (let j = 0; j < k; j++) {
        const idx = order[j] ?? 0;
        outV[i * k + j] = row[idx] ?? 0;
        outI[i * k + j] = BigInt(idx);
      }
    }
    const out: Record<string, Tensor> = {
      values: { datatype: 'FP32', shape: [n, k], data: outV },
      indices: { datatype: 'INT64', shape: [n, k], data: outI },
    };
    return out;
  },
};
