import { describe, expect, it } from 'vitest';
import { GRAPH_VERSION, type GraphDoc } from '@ensemble-studio/core';
import { dependentsToUnload } from './unloadDependents.ts';

/** A graph whose steps run `models`, in order (only its model nodes matter here). */
const graph = (name: string, models: string[]): GraphDoc => ({
  version: GRAPH_VERSION,
  name,
  maxBatchSize: 0,
  nodes: models.map((model, k) => ({
    id: `n${k}`,
    kind: 'model' as const,
    position: { x: 0, y: 0 },
    params: { model },
  })),
  edges: [],
});

const graphs: Record<string, GraphDoc> = {
  pipe: graph('pipe', ['extractor', 'head']),
  other: graph('other', ['head', 'tail']),
  outer: graph('outer', ['inner', 'extractor']),
  inner: graph('inner', ['a', 'b']),
};
const all = () => true;

describe('dependentsToUnload (Triton: unload_dependents)', () => {
  it('takes only composing models that came with an ensemble load, and none another served ensemble uses', () => {
    expect(dependentsToUnload('pipe', graphs, all, new Set())).toEqual([]);
    const implicit = new Set(['extractor', 'head']);
    expect(dependentsToUnload('pipe', graphs, all, implicit)).toEqual([]);
    expect(dependentsToUnload('pipe', graphs, (m) => m !== 'outer', implicit)).toEqual(['extractor']);
    expect(dependentsToUnload('pipe', graphs, (m) => m !== 'outer' && m !== 'other', implicit)).toEqual([
      'extractor',
      'head',
    ]);
  });

  it('cascades through a composing ensemble to its own steps, and leaves what is unloaded already', () => {
    const implicit = new Set(['inner', 'a', 'b', 'extractor']);
    const pipeUnloaded = (m: string) => m !== 'pipe';
    expect(dependentsToUnload('outer', graphs, pipeUnloaded, implicit)).toEqual(['inner', 'extractor', 'a', 'b']);
    expect(dependentsToUnload('outer', graphs, (m) => m !== 'pipe' && m !== 'a', implicit)).toEqual([
      'inner',
      'extractor',
      'b',
    ]);
  });

  it('names nothing for a model that is not a graph, or a prototype key', () => {
    expect(dependentsToUnload('head', graphs, all, new Set(['head']))).toEqual([]);
    expect(dependentsToUnload('constructor', graphs, all, new Set(['constructor']))).toEqual([]);
  });
});
