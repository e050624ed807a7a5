import { describe, expect, it } from 'vitest';
import { ocrGraph } from '../testing/engineGraphs.ts';
import { indexGraph } from './graphIndex.ts';
import { readersOf } from './hostAhead.ts';

describe('readersOf', () => {
  it("finds the nodes that read only a node's outputs, through routers, with their feeds", () => {
    const idx = indexGraph(ocrGraph('gate'));
    // crop → fanout (a router) → rec and cls: each reads crop's crops alone.
    expect(readersOf(idx, 'crop')).toEqual([
      { id: 'rec', feeds: { x: 'crops' } },
      { id: 'cls', feeds: { x: 'crops' } },
    ]);
    expect(readersOf(idx, 'rec')).toEqual([{ id: 'ctc', feeds: { probs: 'softmax_11.tmp_0' } }]);
  });

  it('leaves out a node that also reads another node', () => {
    const idx = indexGraph(ocrGraph('gate'));
    // db reads det's map and preprocess's shape_info: it is nobody's sole reader; det has no other.
    expect(readersOf(idx, 'det')).toEqual([]);
    // has_text reads db's boxes and the input image.
    expect(readersOf(idx, 'db')).toEqual([]);
  });
});
