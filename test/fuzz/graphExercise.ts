// What every fuzzed graph must survive, shared by the graph fuzz properties and their regression cases: everything
// downstream of a successful migrate (validate, lay out, compile) returns data and never throws.
import { expect } from 'vitest';
import {
  compileGraph,
  layoutGraph,
  validateGraph,
  type Catalogue,
  type Diagnostic,
  type GraphDoc,
} from '../../packages/core/src/index.ts';

function checkDiagnostics(ds: Diagnostic[]): void {
  for (const d of ds) {
    expect(['error', 'warning', 'info']).toContain(d.severity);
    expect(d.message).toMatch(/\S/);
  }
}

/** Everything downstream of a successful migrate must return data, never throw. */
export function exercise(graph: GraphDoc, catalogue: Catalogue): void {
  const ds = validateGraph(graph, catalogue);
  checkDiagnostics(ds);
  const laid = layoutGraph(graph);
  expect(laid.nodes).toHaveLength(graph.nodes.length);
  for (const n of laid.nodes) expect(Number.isFinite(n.position.x) && Number.isFinite(n.position.y)).toBe(true);
  const compiled = compileGraph(graph, catalogue);
  checkDiagnostics(compiled.diagnostics);
  if (!ds.some((d) => d.severity === 'error')) {
    // validateGraph found nothing Triton would reject: the compiler must agree and produce the ensemble config.
    // (name collisions with generated/used models are the compiler's own check: validateGraph does not see them.)
    expect(
      compiled.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'name-collision'),
      JSON.stringify(graph),
    ).toEqual([]);
    expect(compiled.files.length).toBeGreaterThan(0);
  }
}
