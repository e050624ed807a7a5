// Condition expressions (a condition node's exit test): one parser, one checker, two back ends (evaluator, Python emitter).
//
// Language: port names ([A-Za-z_][A-Za-z0-9_]*), numbers (1, 0.5, .5, 1e-3; 1e999 = inf), true/false,
// len(x) size(x) x.shape[i] (i may be negative) max/min/sum/mean/any/all(x), == != < <= > >= (not chained),
// + - * / and unary -, and/or/not with Python precedence, parentheses.
// Semantics (shared bit for bit by evaluateExpression and expressionToPython, see python.test.ts):
// - every number is a float64; `/` by zero gives ±inf/nan; 64-bit integers round to the nearest double;
// - a bare port name is its tensor's single element (BOOL → boolean), an error unless it holds exactly one;
// - sum adds left to right; mean = sum / size (NaN when empty); max/min of an empty tensor are -inf/+inf and
//   a zero max/min is +0; NaN propagates through max/min; any/all use element truthiness (NaN is true);
// - BYTES tensors may only appear in len(), size() and .shape[i]; `and`/`or` short-circuit.
// Limits: MAX_EXPRESSION_LENGTH characters, MAX_NESTING levels of (), calls and unary operators,
// MAX_AST_DEPTH nested operations. Columns are 1-based UTF-16 offsets.
export { EXPR_FUNCTIONS } from './ast.ts';
export { parseExpression, MAX_NESTING } from './parser.ts';
export { MAX_EXPRESSION_LENGTH } from './lexer.ts';
export { checkExpression } from './check.ts';
export { evaluateExpression } from './evaluate.ts';
export { expressionToPython } from './python.ts';
export { formatExpression } from './format.ts';
