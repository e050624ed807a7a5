// Condition expressions (PRODUCT §4): one parser, one checker, two back ends (evaluator, Python emitter).
export type {
  Expr, ExprError, ExprFunction, ArithmeticOp, CompareOp, LogicalOp,
  NumberExpr, BoolExpr, RefExpr, ShapeExpr, CallExpr, UnaryExpr, BinaryExpr, CompareExpr, LogicalExpr,
} from './ast.ts';
export { EXPR_FUNCTIONS, referencedPorts } from './ast.ts';
export { parseExpression, MAX_NESTING, MAX_AST_DEPTH } from './parser.ts';
export { MAX_EXPRESSION_LENGTH } from './lexer.ts';
export { checkExpression, type ExprTensorType } from './check.ts';
export { evaluateExpression } from './evaluate.ts';
export { expressionToPython } from './python.ts';
export { formatExpression } from './format.ts';
