import type { GraphDoc, XY } from '@ensemble-studio/core';
import * as fixtures from '../../../../packages/core/src/testing/fixtures.ts';
import { createEditorStore } from '../store/createEditorStore.ts';
import type { NodeTemplate, PortConnection } from '../store/types.ts';

/**
 * A store over core's fixture catalogue with domain verbs, for tests (tldraw-style).
 * @example const ed = editorFixture(fixtures.addSubGraph()); ed.add({ kind: 'router' }); ed.undo(); ed.doc().nodes.length
 */
export function editorFixture(graph: GraphDoc = fixtures.addSubGraph()) {
  const store = createEditorStore({ catalogue: fixtures.fixtureCatalogue(), graph });
  const a = () => store.getState().actions;
  return {
    store,
    doc: () => store.getState().doc.graph,
    state: () => store.getState(),
    add: (t: NodeTemplate, at: XY = { x: 0, y: 0 }) => a().addNode(t, at),
    connect: (c: PortConnection) => a().connect(c),
    select: (nodes: string[], edges: string[] = []) => a().select({ nodes, edges }),
    remove: () => a().removeSelection(),
    undo: () => a().undo(),
    redo: () => a().redo(),
    copy: () => a().copySelection(),
    paste: () => a().paste(),
    /** A React Flow drag of one node through `steps` positions, ending with `dragging: false`. */
    drag(id: string, steps: XY[]) {
      for (const p of steps) a().applyNodeChanges([{ type: 'position', id, position: p, dragging: true }]);
      a().applyNodeChanges([{ type: 'position', id, dragging: false }]);
    },
    node: (id: string) => store.getState().doc.graph.nodes.find((n) => n.id === id),
  };
}
