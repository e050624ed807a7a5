// Regression cases the graph fuzz properties found, and graphs too large for a property: prototype-key names,
// 50,000-node chains, a 3,000-way fan-out. Each must validate, lay out and compile to data, never throw.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  compileGraph,
  findCycle,
  layoutGraph,
  LAYOUT_COLUMN_PX,
  migrate,
  validateGraph,
  type Catalogue,
  type GraphDoc,
} from '../../packages/core/src/index.ts';
import * as fixtures from '../../packages/core/src/testing/fixtures.ts';
import { loadRepository } from '../../apps/server/src/repo/loadRepository.ts';
import { PROTOTYPE_NAMES } from '../support/hostileNames.ts';
import { EXAMPLES_DIR } from '../support/mutate.ts';
import { exercise } from './graphExercise.ts';

let examples: Catalogue;
const catalogues = (): Catalogue[] => [fixtures.fixtureCatalogue(), examples];

beforeAll(async () => {
  examples = (await loadRepository(EXAMPLES_DIR)).catalogue;
});

describe('graph documents: regressions and large graphs', () => {
  it("regression: compileGraph with an output node id 'toString' and a bls condition reads defaults as own properties only", () => {
    // Found by the random-graph property: `cond.params.defaults[o.id]` finds Object.prototype.toString, then `d.data.map` throws.
    const doc = {
      version: 1,
      name: 'ens',
      maxBatchSize: 0,
      edges: [],
      nodes: [
        {
          id: 'a',
          kind: 'condition',
          position: { x: 0, y: 0 },
          params: { expression: 'len(boxes) == 0', strategy: 'bls', ports: [], message: '', defaults: {} },
        },
        {
          id: 'toString',
          kind: 'output',
          position: { x: 0, y: 0 },
          params: { name: 'INPUT0', datatype: 'BYTES', dims: [] },
        },
      ],
    };
    const r = migrate(doc);
    expect(r.ok).toBe(true);
    if (r.ok) expect(() => compileGraph(r.graph, fixtures.fixtureCatalogue())).not.toThrow();
  });

  it.each(PROTOTYPE_NAMES)(
    'a model node naming "%s" is an unknown model in both catalogues, and compiles to data',
    (name) => {
      const doc = fixtures.addSubGraph();
      const simple = doc.nodes.find((n) => n.kind === 'model')!;
      const renamed = {
        ...doc,
        name,
        nodes: doc.nodes.map((n) => (n === simple ? { ...n, params: { ...simple.params, model: name } } : n)),
      };
      const r = migrate(JSON.parse(JSON.stringify(renamed)));
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      for (const catalogue of catalogues()) {
        expect(validateGraph(r.graph, catalogue).map((d) => d.code)).toContain('unknown-model');
        exercise(r.graph, catalogue);
      }
    },
  );

  /** A chain of 50,000 one-way routers, in document order or reversed. */
  function longChain(reversed: boolean): GraphDoc {
    const n = 50_000;
    const nodes = Array.from({ length: n }, (_, i): GraphDoc['nodes'][number] => ({
      id: `n${i}`,
      kind: 'router',
      position: { x: 0, y: 0 },
      params: { mode: 'copy', count: 1 },
    }));
    const edges = Array.from({ length: n - 1 }, (_, i) => ({
      id: `e${i}`,
      source: `n${i}`,
      sourcePort: 'out_0',
      target: `n${i + 1}`,
      targetPort: 'in',
    }));
    return { version: 1, name: 'chain', maxBatchSize: 0, nodes: reversed ? nodes.reverse() : nodes, edges };
  }

  it('regression: findCycle (used by validateGraph) handles a 50,000-node chain without exhausting the stack', () => {
    // Its DFS recurses once per node: validateGraph throws on a chain of ~8,000 models (measured), e.g. an inline graph sent to the server.
    expect(findCycle(longChain(false))).toBeNull();
    const chain = longChain(false);
    const back = { id: 'back', source: 'n49999', sourcePort: 'out_0', target: 'n0', targetPort: 'in' };
    const cyclic = { ...chain, edges: [...chain.edges, back] };
    expect(findCycle(cyclic)).toHaveLength(50_000);
  });

  it('regression: layoutGraph handles a 50,000-node chain listed sink first', () => {
    // columns() computes depth() recursively through predecessors; nodes listed from the sink recurse the whole chain.
    const laid = layoutGraph(longChain(true));
    expect(laid.nodes[0]!.position.x).toBe(49_999 * LAYOUT_COLUMN_PX);
  });

  it('a 3,000-way router fan-out and a 2,000-model chain validate, lay out and compile', () => {
    const fan = fixtures.graphFixture('fan', 0).input('x', 'FP32', [-1]).router('r', 3000);
    fan.feed('x', 'r', 'in');
    for (let i = 0; i < 3000; i++) fan.output(`y${i}`, 'FP32', [-1]).emit('r', `out_${i}`, `y${i}`);
    const chain = fixtures.graphFixture('chain', 4).input('x', 'FP32', [-1]);
    let prev = 'x',
      port = 'out';
    for (let i = 0; i < 2000; i++) {
      chain.model(`m${i}`, 'identity').wire(prev, port, `m${i}`, 'INPUT0');
      prev = `m${i}`;
      port = 'OUTPUT0';
    }
    chain.output('y', 'FP32', [-1]).emit(prev, port, 'y');
    for (const doc of [fan.doc(), chain.doc()]) {
      const r = migrate(JSON.parse(JSON.stringify(doc)));
      expect(r.ok).toBe(true);
      if (r.ok) exercise(r.graph, fixtures.fixtureCatalogue());
    }
  });
});
