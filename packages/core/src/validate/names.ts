/** Longest name we accept for a model or ensemble tensor (Triton limits string ids to 128 chars). */
const MAX_NAME_LENGTH = 128;

/**
 * Why `name` is not a safe Triton model/tensor name, or undefined when it is. The rule (stricter
 * than Triton, so names work as directory names, in generated Python and in URLs): 1–128 chars
 * from `A-Z a-z 0-9 _ . -`, not starting with `.` (hidden dirs; `.`/`..`). So no `/`, quotes,
 * backslashes, spaces or newlines.
 * @example tritonNameProblem('ocr') === undefined; tritonNameProblem('a/b') // 'contains "/"'
 */
export function tritonNameProblem(name: string): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'is empty';
  if (name.length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  if (name.startsWith('.')) return 'starts with "."';
  const bad = [...name].find((ch) => !/[A-Za-z0-9_.-]/.test(ch));
  if (bad !== undefined) return `contains ${JSON.stringify(bad)} (use letters, digits, "_", "." or "-")`;
  return undefined;
}

/** @example isValidTritonName('text_det.v4') === true */
export const isValidTritonName = (name: string): boolean => tritonNameProblem(name) === undefined;

/** Python 3's keywords (`keyword.kwlist`): never a name in Python source. */
export const PYTHON_KEYWORDS: ReadonlySet<string> = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);

/**
 * Python's soft keywords (`keyword.softkwlist` of 3.12: `match`, `case`, `type`, `_`): names a program may
 * use, but generated code avoids them so it reads the same under every Python 3 version.
 */
export const PYTHON_SOFT_KEYWORDS: ReadonlySet<string> = new Set(['_', 'case', 'match', 'type']);

/**
 * Whether `name` can be a Python variable in generated code: an ASCII identifier, not a keyword.
 * @example isPythonIdentifier('boxes') === true; isPythonIdentifier('2x') === false
 */
export function isPythonIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_KEYWORDS.has(name);
}
