// Generated Python never interpolates user text unescaped: hostile names, messages, expressions,
// defaults and op values still give valid Python, and messages arrive intact.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../../packages/core/src/compile/index.ts';
import { pyStr, pyValue } from '../../packages/core/src/compile/pyStr.ts';
import { fixtureCatalogue, graphFixture } from '../../packages/core/src/testing/fixtures.ts';
import type { GraphDoc, GraphNode } from '../../packages/core/src/graph/types.ts';
import { parsePbtxt } from '../../packages/core/src/pbtxt/index.ts';
import { conditionGraph, HOSTILE_MESSAGE } from '../python/fixtures.ts';
import { HARNESS_DIR, pythonSyntaxErrors, requirePythonNumpy, runModel, writeRepo } from '../python/harness.ts';

const HOSTILE = [
  '',
  'it\'s "quoted"',
  '"""triple""" and \'\'\'triple\'\'\'',
  'back\\slash\\',
  'line\nbreak\r\nand\ttab',
  'nul\0byte',
  'ünïcødé — 漢字 🎉',
  'lone \ud800 surrogate',
  '\u2028\u2029',
  '"); import os; os.system("echo pwned"); ("',
  '\\x41\\N{BULLET}',
];

beforeAll(() => requirePythonNumpy());

function pythonEval(literals: string[]): unknown[] {
  const src = 'import ast, json, sys\nprint(json.dumps([ast.literal_eval(l) for l in json.loads(sys.stdin.read())]))';
  return JSON.parse(
    execFileSync('python3', ['-c', src], { input: JSON.stringify(literals), encoding: 'utf8' }),
  ) as unknown[];
}

/** A graph whose every user-controlled string is hostile. */
function hostileGraph(strategy: 'gate' | 'error' | 'bls'): GraphDoc {
  const name = "x\"\n'''; import os #";
  return graphFixture(name, 0)
    .input('in"put\n', 'FP32', [-1, 4], { id: 'in\\"id' })
    .op("op \"\n'''", 'topk', { k: 1 })
    .condition('c"""\n', {
      ports: ['values'],
      expression: 'len(values) == 0 """\nimport os',
      strategy,
      message: HOSTILE_MESSAGE,
      defaults: {},
    })
    .output('out"\'\n', 'FP32', [-1, 1], { id: 'o' })
    .output('idx', 'INT64', [-1, 1])
    .wire('in\\"id', 'out', "op \"\n'''", 'scores')
    .wire("op \"\n'''", 'values', 'c"""\n', 'values')
    .emit('c"""\n', 'values', 'o')
    .emit("op \"\n'''", 'indices', 'idx')
    .doc();
}

describe('pyStr in Python', () => {
  it('round-trips every hostile string', () => {
    const back = pythonEval(HOSTILE.map(pyStr));
    expect(back.map((s) => JSON.stringify(s))).toEqual(HOSTILE.map((s) => JSON.stringify(s)));
  });

  it('pyValue round-trips nested values', () => {
    expect(pythonEval([pyValue({ 'k"\n': [1.5, -2, false, 'q\'"'] })])).toEqual([{ 'k"\n': [1.5, -2, false, 'q\'"'] }]);
  });
});

describe('hostile graphs', () => {
  for (const strategy of ['gate', 'error', 'bls'] as const) {
    it(`${strategy}: every generated file is valid Python and every path is safe`, () => {
      const { files, ok } = compileGraph(hostileGraph(strategy), fixtureCatalogue());
      expect(ok).toBe(false); // invalid names and expression are reported…
      for (const f of files)
        expect(f.path).toMatch(/^(README\.md|[A-Za-z0-9_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.][A-Za-z0-9_.-]*)*)$/);
      const repo = writeRepo(files);
      const py = files.filter((f) => f.path.endsWith('.py')).map((f) => join(repo, f.path));
      expect(py.length).toBeGreaterThan(0);
      expect(pythonSyntaxErrors(py)).toEqual({}); // …but nothing breaks out of its string literal
      for (const f of files.filter((x) => x.path.endsWith('config.pbtxt'))) expect(parsePbtxt(f.text!).ok).toBe(true);
    });
  }

  it('an unparsable expression fails requests with a clear error instead of running code', () => {
    const { files } = compileGraph(hostileGraph('error'), fixtureCatalogue());
    const gate = files.find((f) => f.path.endsWith('/1/model.py') && f.text?.includes('MESSAGE ='))!;
    const model = gate.path.split('/')[0]!;
    const parsed = parsePbtxt(files.find((f) => f.path === `${model}/config.pbtxt`)!.text!);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const out = runModel(writeRepo(files), model, parsed.config, [
      { inputs: { IN_values: { datatype: 'FP32', shape: [1, 1], data: [1] } } },
    ]);
    expect(out.results[0]!.responses[0]!.error).toMatch(/^invalid condition expression/);
  });

  it('the error message reaches the client intact from a BLS error condition', () => {
    const base = conditionGraph('bls', 'bls_error');
    const errorCondition: GraphNode = {
      id: 'e',
      kind: 'condition',
      position: { x: 0, y: 0 },
      params: { expression: 'len(y) > 0', strategy: 'error', ports: ['y'], message: HOSTILE_MESSAGE, defaults: {} },
    };
    const intoHead = base.edges.find((x) => x.target === 'head');
    const g = {
      ...base,
      nodes: [...base.nodes, errorCondition],
      edges: [
        ...base.edges.filter((x) => x !== intoHead),
        { id: 'e9', source: 'e', sourcePort: 'y', target: 'head', targetPort: 'INPUT0' },
        { id: 'e8', source: 'c', sourcePort: 'y', target: 'e', targetPort: 'y' },
      ],
    };
    const { files } = compileGraph(g, fixtureCatalogue());
    const parsed = parsePbtxt(files.find((f) => f.path === 'bls_error/config.pbtxt')!.text!);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const out = runModel(
      writeRepo(files),
      'bls_error',
      parsed.config,
      [{ inputs: { X: { datatype: 'FP32', shape: [1, 1], data: [0.9] } } }],
      join(HARNESS_DIR, 'stubs_fixture.py'),
    );
    expect(out.results[0]!.responses[0]!.error).toBe(HOSTILE_MESSAGE);
  });
});
