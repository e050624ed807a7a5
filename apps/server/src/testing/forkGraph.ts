import type { GraphDoc } from '@ensemble-studio/core';

/**
 * A saved-graph document over the test repository's models: x [64] → extractor → a copy router
 * (`<name>_share`, a helper model the compiler generates, with `count` outputs) → `head` on its
 * first output → logits; the other outputs are graph outputs `feat_1`… as they leave the router.
 * @example await call(`${s.url}/api/graphs/fork`, 'PUT', forkGraph('fork'))
 */
export function forkGraph(name: string, count = 2): GraphDoc {
  const at = { x: 0, y: 0 };
  const copies = Array.from({ length: count - 1 }, (_, i) => i + 1);
  return {
    version: 1,
    name,
    maxBatchSize: 8,
    nodes: [
      { id: 'x', kind: 'input', position: at, params: { name: 'x', datatype: 'FP32', dims: [64] } },
      { id: 'extractor', kind: 'model', position: at, params: { model: 'extractor' } },
      { id: 'share', kind: 'router', position: at, params: { mode: 'copy', count } },
      { id: 'head', kind: 'model', position: at, params: { model: 'head' } },
      { id: 'logits', kind: 'output', position: at, params: { name: 'logits', datatype: 'FP32', dims: [16] } },
      ...copies.map((i) => ({
        id: `feat_${i}`,
        kind: 'output' as const,
        position: at,
        params: { name: `feat_${i}`, datatype: 'FP32' as const, dims: [256] },
      })),
    ],
    edges: [
      { id: 'e1', source: 'x', sourcePort: 'out', target: 'extractor', targetPort: 'x' },
      { id: 'e2', source: 'extractor', sourcePort: 'feat', target: 'share', targetPort: 'in' },
      { id: 'e3', source: 'share', sourcePort: 'out_0', target: 'head', targetPort: 'feat' },
      { id: 'e4', source: 'head', sourcePort: 'logits', target: 'logits', targetPort: 'in' },
      ...copies.map((i) => ({
        id: `c${i}`,
        source: 'share',
        sourcePort: `out_${i}`,
        target: `feat_${i}`,
        targetPort: 'in',
      })),
    ],
  } as GraphDoc;
}
