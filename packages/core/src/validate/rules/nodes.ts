import { EXPR_FUNCTIONS, checkExpression, parseExpression } from '../../expr/index.ts';
import type { PortType } from '../../tensor/tensor.ts';
import { outputNodes } from '../../graph/queries.ts';
import type { ConditionNode, GraphNode } from '../../graph/types.ts';
import { checkParam, type ParamSpec } from '../../kinds/params.ts';
import { KIND_DEFS } from '../../kinds/registry.ts';
import { OP_DEFS, opDef } from '../../ops/defs.ts';
import type { Diagnostic } from '../diagnostic.ts';
import { show, type Rule, type RuleContext } from '../context.ts';
import { isPythonIdentifier } from '../names.ts';
import { portKey } from '../propagate.ts';

const RESERVED_PORT_NAMES = new Set<string>(['true', 'false', ...EXPR_FUNCTIONS]);

function paramProblems(
  n: GraphNode,
  specs: readonly ParamSpec[],
  values: Record<string, unknown>,
  where: string,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const spec of specs) {
    if (values[spec.name] === undefined) continue; // absent = the default
    const problem = checkParam(spec, values[spec.name]);
    if (problem)
      out.push({
        code: 'invalid-param',
        severity: 'error',
        nodeId: n.id,
        message: `${show(n)}: ${problem}`,
        fix: `set ${spec.name} on ${show(n)} to a valid value (default ${JSON.stringify(spec.default)})`,
      });
  }
  for (const key of Object.keys(values)) {
    if (!specs.some((s) => s.name === key))
      out.push({
        code: 'unknown-param',
        severity: 'warning',
        nodeId: n.id,
        message: `${show(n)}: ${where} has no parameter '${key}'`,
        fix: `remove '${key}'`,
      });
  }
  return out;
}

function expressionProblems(ctx: RuleContext, n: ConditionNode): Diagnostic[] {
  const problem = (e: { column: number; message: string }): Diagnostic => ({
    code: 'invalid-expression',
    severity: 'error',
    nodeId: n.id,
    column: e.column,
    message: `${show(n)}: ${e.message}`,
    fix: `fix the expression of ${show(n)} at column ${e.column}`,
  });
  const parsed = parseExpression(n.params.expression);
  if (!parsed.ok) return [problem(parsed.error)];
  const ports: Record<string, PortType> = {};
  for (const p of n.params.ports) ports[p] = ctx.types.get(portKey(n.id, p)) ?? { datatype: null, shape: null };
  return checkExpression(parsed.ast, ports).map(problem);
}

function conditionProblems(ctx: RuleContext, n: ConditionNode): Diagnostic[] {
  const out = paramProblems(n, KIND_DEFS.condition.params, { strategy: n.params.strategy }, 'a condition');
  const seen = new Set<string>();
  for (const p of n.params.ports) {
    let problem: string | undefined;
    if (!isPythonIdentifier(p) || RESERVED_PORT_NAMES.has(p))
      problem = `port name '${p}' is not a valid Python identifier (letters, digits and "_", not starting with a digit, not a keyword or function name)`;
    else if (seen.has(p)) problem = `port '${p}' is listed twice`;
    seen.add(p);
    if (problem)
      out.push({
        code: 'invalid-port-name',
        severity: 'error',
        nodeId: n.id,
        port: p,
        message: `${show(n)}: ${problem}`,
        fix: `rename the port, e.g. '${p.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1')}'`,
      });
  }
  out.push(...expressionProblems(ctx, n));
  if (n.params.strategy === 'bls') {
    const names = new Set(outputNodes(ctx.graph).map((o) => o.params.name));
    for (const key of Object.keys(n.params.defaults)) {
      if (names.has(key)) continue;
      out.push({
        code: 'unknown-default-output',
        severity: 'error',
        nodeId: n.id,
        message: `${show(n)} has a default for '${key}', which is not an ensemble output`,
        fix: `remove the default for '${key}' or add an output named '${key}'`,
      });
    }
  }
  return out;
}

function routerProblems(ctx: RuleContext, n: Extract<GraphNode, { kind: 'router' }>): Diagnostic[] {
  const out = paramProblems(n, KIND_DEFS.router.params, { mode: n.params.mode, count: n.params.count }, 'a router');
  if (out.length > 0) return out;
  const ports = Array.from({ length: n.params.count }, (_, i) => `out_${i}`);
  const connected = ports.filter((p) => ctx.index.outOf(n.id, p).length > 0);
  if (connected.length === 0) {
    return [
      {
        code: 'router-no-consumers',
        severity: 'warning',
        nodeId: n.id,
        message: `router ${show(n)} feeds nothing`,
        fix: `connect its outputs or delete ${show(n)}`,
      },
    ];
  }
  for (const p of ports.filter((q) => !connected.includes(q))) {
    out.push({
      code: 'router-output-unconnected',
      severity: 'warning',
      nodeId: n.id,
      port: p,
      message: `router ${show(n)} has ${n.params.count} outputs but only ${connected.length} connected: '${p}' feeds nothing`,
      fix: `connect ${p} or set count to ${connected.length}`,
    });
  }
  return out;
}

/** Per-kind parameter rules: conditions, routers and ops. */
export const nodeParams: Rule = (ctx) => {
  const out: Diagnostic[] = [];
  for (const n of ctx.graph.nodes) {
    if (n.kind === 'condition') out.push(...conditionProblems(ctx, n));
    else if (n.kind === 'router') out.push(...routerProblems(ctx, n));
    else if (n.kind === 'op') {
      const def = opDef(n.params.op);
      if (!def)
        out.push({
          code: 'unknown-op',
          severity: 'error',
          nodeId: n.id,
          message: `${show(n)} uses unknown op '${n.params.op}'`,
          fix: `pick one of ${Object.keys(OP_DEFS).join(', ')}`,
        });
      else out.push(...paramProblems(n, def.params, n.params.values, `op ${def.id}`));
    }
  }
  return out;
};
