// Runs the generated model.py files on the studio's real Python-backend stub (through test/python/'s harness)
// and compares them with what the TypeScript side computes.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../../packages/core/src/compile/index.ts';
import type { RepoFile } from '../../packages/core/src/compile/types.ts';
import { evaluateExpression, parseExpression } from '../../packages/core/src/expr/index.ts';
import { fixtureCatalogue, graphFixture } from '../../packages/core/src/testing/fixtures.ts';
import type { GraphDoc } from '../../packages/core/src/graph/types.ts';
import { parsePbtxt } from '../../packages/core/src/pbtxt/index.ts';
import type { ModelConfig } from '../../packages/core/src/pbtxt/modelConfig.ts';
import { tensorFromJson } from '../../packages/core/src/tensor/tensor.ts';
import { conditionGraph, HOSTILE_MESSAGE, opGraph, routerGraph, blsMixedGraph } from '../python/fixtures.ts';
import {
  HARNESS_DIR,
  requirePythonNumpy,
  runModel,
  writeRepo,
  type HarnessRequest,
  type JsonTensor,
} from '../python/harness.ts';

const STUBS = join(HARNESS_DIR, 'stubs_fixture.py');

function compiled(graph: GraphDoc): { files: RepoFile[]; repo: string; config: (model: string) => ModelConfig } {
  const result = compileGraph(graph, fixtureCatalogue());
  const repo = writeRepo(result.files);
  const config = (model: string): ModelConfig => {
    const text = result.files.find((f) => f.path === `${model}/config.pbtxt`)?.text;
    const parsed = parsePbtxt(text ?? '');
    if (!parsed.ok) throw new Error(`no config for ${model}`);
    return parsed.config;
  };
  return { files: result.files, repo, config };
}

const fp32 = (shape: number[], data: number[]): JsonTensor => ({
  datatype: 'FP32',
  shape,
  data: data.map(Math.fround),
});

/** What the TypeScript evaluator says about `expression` for port `y`. */
function tsHolds(expression: string, y: JsonTensor): boolean {
  const parsed = parseExpression(expression);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return Boolean(evaluateExpression(parsed.ast, { y: tensorFromJson('FP32', y.shape, y.data) }));
}

const CONDITION_INPUTS: JsonTensor[] = [
  fp32([1, 2], [0.9, 0.1]),
  fp32([1, 2], [0.1, 0.2]),
  fp32([2, 1], [0.5, 0.49]),
  fp32([1, 0], []),
];

beforeAll(() => requirePythonNumpy());

describe('router copy model', () => {
  it('returns N equal, independent copies', () => {
    const { repo, config } = compiled(routerGraph('copy'));
    const x = fp32([2, 3], [1, 2, 3, 4, 5, 6]);
    const out = runModel(repo, 'router_copy_r', config('router_copy_r'), [{ inputs: { in: x } }]);
    const r = out.results[0]!.responses[0]!;
    expect(r.error).toBeNull();
    expect(r.outputs).toEqual({ out_0: x, out_1: x });
    expect(r.shared).toEqual([]);
  });
});

describe('decoupled gate', () => {
  it('sends one response when the condition is false and zero (FINAL only) when it holds', () => {
    const { repo, config } = compiled(conditionGraph('gate'));
    const cfg = config('cond_gate_c');
    expect(cfg.model_transaction_policy?.decoupled).toBe(true);
    const requests: HarnessRequest[] = CONDITION_INPUTS.map((y) => ({ inputs: { IN_y: y } }));
    const out = runModel(repo, 'cond_gate_c', cfg, requests);
    expect(out.decoupled).toBe(true);
    const holds = CONDITION_INPUTS.map((y) => tsHolds('max(y) < 0.5', y));
    expect(holds).toContain(true);
    expect(holds).toContain(false);
    CONDITION_INPUTS.forEach((y, i) => {
      const res = out.results[i]!;
      expect(res.final).toBe(true);
      expect(res.flags.at(-1)).toBe(1);
      if (holds[i]) {
        expect(res.responses).toEqual([]);
        expect(res.flags).toEqual([1]);
      } else {
        expect(res.responses).toHaveLength(1);
        expect(res.responses[0]!.outputs).toEqual({ OUT_y: y });
      }
    });
  });
});

describe('error gate', () => {
  it('fails with the user message, intact, when the condition holds; passes tensors through otherwise', () => {
    const { repo, config } = compiled(conditionGraph('error'));
    const requests = CONDITION_INPUTS.map((y) => ({ inputs: { IN_y: y } }));
    const out = runModel(repo, 'cond_error_c', config('cond_error_c'), requests);
    expect(out.decoupled).toBe(false);
    CONDITION_INPUTS.forEach((y, i) => {
      const r = out.results[i]!.responses[0]!;
      if (tsHolds('max(y) < 0.5', y)) expect(r.error).toBe(HOSTILE_MESSAGE);
      else expect(r).toMatchObject({ error: null, outputs: { OUT_y: y } });
    });
  });
});

describe('BLS model', () => {
  it('calls the composing models in order, or exits early with the declared defaults', () => {
    const { repo, config } = compiled(conditionGraph('bls'));
    const requests = CONDITION_INPUTS.map((y) => ({ inputs: { X: y } }));
    const out = runModel(repo, 'cond_bls', config('cond_bls'), requests, STUBS);
    const calls = out.calls.map((c) => c.model);
    let expectedCalls: string[] = [];
    CONDITION_INPUTS.forEach((x, i) => {
      const r = out.results[i]!.responses[0]!;
      expect(r.error).toBeNull();
      if (tsHolds('max(y) < 0.5', x)) {
        expect(r.outputs).toEqual({ Y: fp32([1, 2], [-1, -2]) });
        expectedCalls = [...expectedCalls, 'identity'];
      } else {
        expect(r.outputs).toEqual({
          Y: fp32(
            x.shape,
            x.data.map((v) => Math.fround(Number(v) + 10)),
          ),
        });
        expectedCalls = [...expectedCalls, 'identity', 'optional_in'];
      }
    });
    expect(calls).toEqual(expectedCalls);
  });

  it('runs ops inline and copies through routers; empty outputs on exit', () => {
    const { repo, config } = compiled(blsMixedGraph());
    const requests = [
      { inputs: { scores: fp32([1, 3], [0.2, 0.9, 0.3]) } },
      { inputs: { scores: fp32([1, 2], [0.1, 0.2]) } },
    ];
    const out = runModel(repo, 'bls_mixed', config('bls_mixed'), requests);
    const [go, exit] = out.results.map((r) => r.responses[0]!);
    expect(go!.outputs).toEqual({
      V1: fp32([1, 1], [Math.fround(0.9)]),
      V2: fp32([1, 1], [Math.fround(0.9)]),
      I: { datatype: 'INT64', shape: [1, 1], data: [1] },
    });
    expect(go!.shared).toEqual([]);
    expect(exit!.outputs).toEqual({
      V1: fp32([0, 1], []),
      V2: fp32([0, 1], []),
      I: { datatype: 'INT64', shape: [0, 1], data: [] },
    });
    expect(out.calls).toEqual([]);
  });
});

describe('BLS model with a stateful composing model', () => {
  it("forwards the client's sequence id and START/END flags to it", () => {
    const g = graphFixture('bls_seq', 1)
      .input('a', 'FP32', [-1])
      .input('sr', 'INT64', [1])
      .condition('c', { ports: ['a'], expression: 'len(a) == 0', strategy: 'bls', defaults: {} })
      .model('v', 'vad')
      .output('p', 'FP32', [1])
      .feed('a', 'c', 'a')
      .wire('c', 'a', 'v', 'input')
      .feed('sr', 'v', 'sr')
      .emit('v', 'output', 'p')
      .doc();
    const { repo, config } = compiled(g);
    const inputs = { a: fp32([1, 2], [1, 3]), sr: { datatype: 'INT64', shape: [1, 1], data: [16000] } };
    const out = runModel(
      repo,
      'bls_seq',
      config('bls_seq'),
      [
        { inputs, correlation_id: 42, flags: 1 },
        { inputs, correlation_id: 42, flags: 2 },
      ],
      STUBS,
    );
    expect(out.results.map((r) => r.responses[0]!.outputs)).toEqual([
      { p: fp32([1, 1], [2]) },
      { p: fp32([1, 1], [2]) },
    ]);
    expect(out.calls.map((c) => [c.model, c.correlation_id, c.flags])).toEqual([
      ['vad', 42, 1],
      ['vad', 42, 2],
    ]);
  });
});

describe('op model', () => {
  it('wraps the op numpy code (topk k = 2)', () => {
    const { repo, config } = compiled(opGraph());
    const scores = fp32([2, 3], [0.1, 0.7, 0.2, 0.5, 0.4, 0.6]);
    const out = runModel(repo, 'topk_op_top', config('topk_op_top'), [{ inputs: { scores } }]);
    const r = out.results[0]!.responses[0]!;
    expect(r.error).toBeNull();
    expect(r.outputs).toEqual({
      values: fp32([2, 2], [0.7, 0.2, 0.6, 0.5].map(Math.fround)),
      indices: { datatype: 'INT64', shape: [2, 2], data: [1, 2, 2, 0] },
    });
  });
});
