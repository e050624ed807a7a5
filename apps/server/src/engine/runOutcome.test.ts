import { describe, expect, it } from 'vitest';
import type { GraphDoc, NodeTiming, Tensor } from '@ensemble-studio/core';
import { RunCancel } from './cancel.ts';
import { indexGraph } from './graphIndex.ts';
import { schedulerResult } from './runOutcome.ts';

const at = { x: 0, y: 0 };
const tensor = (name: string) => ({ name, datatype: 'FP32' as const, dims: [1] });
const y: Tensor = { datatype: 'FP32', shape: [1], data: Float32Array.of(6) };
const ran = (...ids: string[]): NodeTiming[] =>
  ids.map((nodeId) => ({ nodeId, queueMs: 0, computeMs: 0, startMs: 0, endMs: 0 }));

// X → a; a.Y → output Y; a.S → output S directly, or through b into output Z.
function graph(through: boolean): GraphDoc {
  return {
    version: 1,
    name: 'g',
    maxBatchSize: 0,
    nodes: [
      { id: 'x', kind: 'input', position: at, params: tensor('X') },
      { id: 'a', kind: 'model', position: at, params: { model: 'a' } },
      ...(through ? [{ id: 'b', kind: 'model' as const, position: at, params: { model: 'b' } }] : []),
      { id: 'y', kind: 'output', position: at, params: tensor('Y') },
      { id: 'z', kind: 'output', position: at, params: tensor(through ? 'Z' : 'S') },
    ],
    edges: [
      { id: 'e1', source: 'x', sourcePort: 'out', target: 'a', targetPort: 'X' },
      { id: 'e2', source: 'a', sourcePort: 'Y', target: 'y', targetPort: 'in' },
      through
        ? { id: 'e3', source: 'a', sourcePort: 'S', target: 'b', targetPort: 'X' }
        : { id: 'e3', source: 'a', sourcePort: 'S', target: 'z', targetPort: 'in' },
      ...(through ? [{ id: 'e4', source: 'b', sourcePort: 'Y', target: 'z', targetPort: 'in' }] : []),
    ],
  };
}

function outcome(g: GraphDoc, timings: NodeTiming[], reached: string[]) {
  const state = { failure: undefined, exit: undefined, partials: 0, silentNodes: 0, requestId: undefined };
  return schedulerResult({
    graph: g,
    idx: indexGraph(g),
    signal: new RunCancel(),
    outputs: { Y: y },
    timings,
    executed: new Set([...timings.map((t) => t.nodeId), ...reached]),
    ...state,
  });
}

describe('a run whose outputs were not all produced', () => {
  it('completes without an output its node left out of the response it sent (Triton: a placeholder)', () => {
    // The placeholder reached output node z.
    const r = outcome(graph(false), ran('a'), ['y', 'z']);
    expect([r.status, Object.keys(r.outputs)]).toEqual(['completed', ['Y']]);
  });

  it("fails with Triton's deadlock error when nothing ever reached an output", () => {
    const r = outcome(graph(true), ran('a'), ['y']);
    expect([r.status, r.error]).toEqual([
      'failed',
      {
        code: 'output-missing',
        message:
          "in ensemble 'g', [request id: <id_unknown>] unexpected deadlock, at least one output is not set while no more ensemble steps can be made",
      },
    ]);
  });
});
