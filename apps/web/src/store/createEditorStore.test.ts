import { describe, expect, it } from 'vitest';
import { canConnect } from '@ensemble-studio/core';
import * as fixtures from '../../../../packages/core/src/testing/fixtures.ts';
import { editorFixture } from '../testing/editorFixture.ts';
import { HISTORY_LIMIT } from './history.ts';
import { selectDiagnostics, selectDirty } from './selectors.ts';

describe('editor store: history', () => {
  it('undo removes an added node and redo brings it back', () => {
    const ed = editorFixture();
    const before = ed.doc();
    const id = ed.add({ kind: 'router' });
    expect(ed.node(id)?.kind).toBe('router');
    ed.undo();
    expect(ed.doc()).toBe(before);
    ed.redo();
    expect(ed.node(id)?.kind).toBe('router');
  });

  it('a drag is one undo step', () => {
    const ed = editorFixture();
    ed.drag('simple', [
      { x: 10, y: 0 },
      { x: 20, y: 5 },
      { x: 30, y: 10 },
    ]);
    expect(ed.node('simple')?.position).toEqual({ x: 30, y: 10 });
    expect(ed.state().history.past).toHaveLength(1);
    ed.undo();
    expect(ed.node('simple')?.position).toEqual({ x: 0, y: 0 });
  });

  it('selection changes do not clear redo', () => {
    const ed = editorFixture();
    ed.add({ kind: 'router' });
    ed.undo();
    ed.select(['simple']);
    ed.state().actions.applyNodeChanges([{ type: 'select', id: 'INPUT0', selected: true }]);
    expect(ed.state().history.future).toHaveLength(1);
  });

  it('measuring nodes neither records history nor dirties the graph', () => {
    const ed = editorFixture();
    ed.state().actions.applyNodeChanges([{ type: 'dimensions', id: 'simple', dimensions: { width: 200, height: 90 } }]);
    expect(ed.state().ui.measured.simple).toEqual({ width: 200, height: 90 });
    expect(ed.state().history.past).toHaveLength(0);
    expect(selectDirty(ed.state())).toBe(false);
  });

  it('a new edit clears redo', () => {
    const ed = editorFixture();
    ed.add({ kind: 'router' });
    ed.undo();
    ed.add({ kind: 'condition' });
    expect(ed.state().history.future).toHaveLength(0);
  });

  it(`keeps at most ${HISTORY_LIMIT} undo steps`, () => {
    const ed = editorFixture();
    for (let i = 0; i < HISTORY_LIMIT + 20; i++) ed.state().actions.setMaxBatchSize(i + 1);
    expect(ed.state().history.past).toHaveLength(HISTORY_LIMIT);
  });

  it('undoing back to the saved document makes it clean again', () => {
    const ed = editorFixture();
    ed.add({ kind: 'router' });
    expect(selectDirty(ed.state())).toBe(true);
    ed.undo();
    expect(selectDirty(ed.state())).toBe(false);
  });
});

describe('editor store: editing', () => {
  it('connect replaces the edge that already feeds the input port', () => {
    const ed = editorFixture();
    ed.connect({ source: 'INPUT1', sourcePort: 'out', target: 'simple', targetPort: 'INPUT0' });
    const into = ed.doc().edges.filter((e) => e.target === 'simple' && e.targetPort === 'INPUT0');
    expect(into).toEqual([expect.objectContaining({ source: 'INPUT1', id: 'INPUT1.out->simple.INPUT0' })]);
  });

  it('removing the selection removes nodes, their edges and selected edges in one step', () => {
    const ed = editorFixture();
    ed.select(['simple'], []);
    ed.remove();
    expect(ed.node('simple')).toBeUndefined();
    expect(ed.doc().edges).toEqual([]);
    expect(ed.state().ui.selection.nodes).toEqual([]);
    ed.undo();
    expect(ed.doc().edges).toHaveLength(4);
  });

  it('paste copies nodes with fresh ids and the edges among them, offset each time', () => {
    const ed = editorFixture();
    ed.select(['INPUT0', 'simple']);
    ed.copy();
    ed.paste();
    const ids = ed.doc().nodes.map((n) => n.id);
    expect(ids).toContain('INPUT0_2');
    expect(ids).toContain('simple_2');
    expect(ed.doc().edges).toContainEqual(
      expect.objectContaining({ source: 'INPUT0_2', target: 'simple_2', targetPort: 'INPUT0' }),
    );
    expect(ed.state().ui.selection.nodes.sort()).toEqual(['INPUT0_2', 'simple_2']);
    const copy = ed.node('INPUT0_2');
    expect(copy?.kind === 'input' && copy.params.name).not.toBe('INPUT0');
    ed.paste();
    expect(ed.node('simple_3')?.position).toEqual({ x: 80, y: 80 });
  });

  it('adds nodes with readable unique ids from the palette template', () => {
    const ed = editorFixture();
    expect(ed.add({ kind: 'model', model: 'simple' })).toBe('simple_2');
    expect(ed.add({ kind: 'op', op: 'topk' })).toBe('topk');
    expect(ed.node('topk')).toMatchObject({ kind: 'op', params: { op: 'topk', values: { k: 1 } } });
  });

  it('diagnostics follow the graph: a broken edge is reported and the fix clears it', () => {
    const ed = editorFixture();
    expect(selectDiagnostics(ed.state()).filter((d) => d.severity === 'error')).toEqual([]);
    ed.select([], ['e1']);
    ed.remove();
    expect(selectDiagnostics(ed.state()).some((d) => d.severity === 'error' && d.nodeId === 'simple')).toBe(true);
    ed.connect({ source: 'INPUT0', sourcePort: 'out', target: 'simple', targetPort: 'INPUT0' });
    expect(selectDiagnostics(ed.state()).filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('the connection rule the canvas uses refuses a dtype mismatch with a reason', () => {
    const ed = editorFixture(fixtures.graphFixture('g').input('F', 'FP32', [-1]).model('simple', 'simple').doc());
    const r = canConnect(ed.doc(), ed.state().catalogue, {
      source: 'F',
      sourcePort: 'out',
      target: 'simple',
      targetPort: 'INPUT0',
    });
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('dtype mismatch') });
  });
});
