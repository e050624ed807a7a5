import type { Tensor } from '@ensemble-studio/core';
import { evaluateExpression, parseExpression } from '@ensemble-studio/core';
import { EngineError } from './errors.ts';

type Ast = Extract<ReturnType<typeof parseExpression>, { ok: true }>['ast'];
const parsed = new Map<string, Ast>();

/**
 * Whether a condition holds: `expression` evaluated over the tensors on its ports. Runs on the main
 * thread, or in a model's worker when the condition is fused (fusion.ts); `nodeId` names it in errors.
 * @example conditionHolds('len(boxes) == 0', { boxes }, 'has_text') // { holds: false, value: false }
 */
export function conditionHolds(
  expression: string,
  inputs: Record<string, Tensor>,
  nodeId: string,
): { holds: boolean; value: number | boolean } {
  let ast = parsed.get(expression);
  if (!ast) {
    const p = parseExpression(expression);
    if (!p.ok)
      throw new EngineError('invalid-graph', `condition '${nodeId}': ${p.error.message} (column ${p.error.column})`);
    ast = p.ast;
    if (parsed.size > 1000) parsed.clear();
    parsed.set(expression, ast);
  }
  const value = evaluateExpression(ast, inputs);
  return { holds: typeof value === 'boolean' ? value : value !== 0, value };
}
