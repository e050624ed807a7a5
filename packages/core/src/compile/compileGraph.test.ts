import { describe, expect, it } from 'vitest';
import { addSubGraph, fixtureCatalogue, graphFixture } from '../testing/fixtures.ts';
import { parsePbtxt } from '../pbtxt/index.ts';
import type { ModelConfig } from '../pbtxt/modelConfig.ts';
import { compileGraph } from './compileGraph.ts';
import { compileNodePreview } from './preview.ts';
import type { RepoFile } from './types.ts';

const cat = fixtureCatalogue();

function config(files: RepoFile[], path: string): ModelConfig {
  const f = files.find((x) => x.path === path);
  if (!f?.text) throw new Error(`no ${path} in ${files.map((x) => x.path).join(', ')}`);
  const parsed = parsePbtxt(f.text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.config;
}

function gateGraph(strategy: 'gate' | 'error' | 'bls' = 'gate') {
  return graphFixture('g', 4)
    .input('X', 'FP32', [-1])
    .model('m', 'identity')
    .condition('c', { ports: ['y'], expression: 'len(y) == 0', strategy })
    .model('head', 'optional_in')
    .output('Y', 'FP32', [-1])
    .feed('X', 'm', 'INPUT0')
    .wire('m', 'OUTPUT0', 'c', 'y')
    .wire('c', 'y', 'head', 'INPUT0')
    .emit('head', 'OUTPUT0', 'Y');
}

describe('compileGraph: ensemble', () => {
  it('maps the qa add_sub graph to one step with model_version -1 and an empty version dir', () => {
    const r = compileGraph(addSubGraph(), cat);
    expect(r.ok).toBe(true);
    const ens = config(r.files, 'add_sub/config.pbtxt');
    expect(ens).toMatchObject({ name: 'add_sub', platform: 'ensemble', max_batch_size: 8 });
    expect(ens.ensemble_scheduling?.step).toEqual([
      {
        model_name: 'simple',
        model_version: -1,
        input_map: { INPUT0: 'INPUT0', INPUT1: 'INPUT1' },
        output_map: { OUTPUT0: 'OUTPUT0', OUTPUT1: 'OUTPUT1' },
      },
    ]);
    expect(r.files.find((f) => f.path === 'add_sub/1/.gitkeep')).toEqual({ path: 'add_sub/1/.gitkeep', text: '' });
    expect(r.files.find((f) => f.path === 'simple/1/model.onnx')).toEqual({
      path: 'simple/1/model.onnx',
      copyFrom: 'simple/1/model.onnx',
    });
  });

  it('prunes unconsumed step outputs with a warning', () => {
    const g = graphFixture('p', 8)
      .input('A', 'INT32', [16])
      .input('B', 'INT32', [16])
      .model('s', 'simple')
      .output('O', 'INT32', [16])
      .feed('A', 's', 'INPUT0')
      .feed('B', 's', 'INPUT1')
      .emit('s', 'OUTPUT0', 'O')
      .doc();
    const r = compileGraph(g, cat);
    expect(config(r.files, 'p/config.pbtxt').ensemble_scheduling?.step?.[0]?.output_map).toEqual({ OUTPUT0: 'O' });
    expect(r.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'unused-output', severity: 'warning', nodeId: 's', port: 'OUTPUT1' }),
    );
    expect(r.diagnostics.filter((d) => d.code === 'unused-output' && d.port === 'OUTPUT1')).toHaveLength(1);
  });

  it('names intermediates <node>__<port> and keeps optional inputs', () => {
    const g = graphFixture('o', 4)
      .input('X', 'FP32', [-1], { optional: true })
      .model('a', 'identity')
      .model('b', 'identity')
      .output('Y', 'FP32', [-1])
      .feed('X', 'a', 'INPUT0')
      .wire('a', 'OUTPUT0', 'b', 'INPUT0')
      .emit('b', 'OUTPUT0', 'Y')
      .doc();
    const ens = config(compileGraph(g, cat).files, 'o/config.pbtxt');
    expect(ens.input?.[0]?.optional).toBe(true);
    expect(ens.ensemble_scheduling?.step?.map((s) => [s.input_map, s.output_map])).toEqual([
      [{ INPUT0: 'X' }, { OUTPUT0: 'a__OUTPUT0' }],
      [{ INPUT0: 'a__OUTPUT0' }, { OUTPUT0: 'Y' }],
    ]);
  });

  it("maps a direct router's producer tensor into every consumer and generates no model", () => {
    const g = graphFixture('d', 4)
      .input('X', 'FP32', [-1])
      .model('m', 'identity')
      .router('r', 2, 'direct')
      .model('h1', 'optional_in')
      .output('A', 'FP32', [-1])
      .output('B', 'FP32', [-1])
      .feed('X', 'm', 'INPUT0')
      .wire('m', 'OUTPUT0', 'r', 'in')
      .wire('r', 'out_0', 'h1', 'INPUT0')
      .wire('r', 'out_1', 'h1', 'INPUT1')
      .emit('h1', 'OUTPUT0', 'A')
      .doc();
    const r = compileGraph(g, cat);
    const steps = config(r.files, 'd/config.pbtxt').ensemble_scheduling?.step ?? [];
    expect(steps.map((s) => s.model_name)).toEqual(['identity', 'optional_in']);
    expect(steps[1]?.input_map).toEqual({ INPUT0: 'm__OUTPUT0', INPUT1: 'm__OUTPUT0' });
    expect(r.files.some((f) => f.path.startsWith('d_r/'))).toBe(false);
  });

  it('reports an output wired straight from an input (Triton needs a step)', () => {
    const g = graphFixture('w', 0).input('X', 'FP32', [-1]).output('Y', 'FP32', [-1]).feed('X', 'Y', 'in').doc();
    const r = compileGraph(g, cat);
    expect(r.ok).toBe(false);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'output-from-input', nodeId: 'Y' }));
  });

  it('still returns a preview when validation fails', () => {
    const whole = gateGraph().doc();
    const g = { ...whole, nodes: whole.nodes.filter((n) => n.id !== 'X') };
    const r = compileGraph(g, cat);
    expect(r.ok).toBe(false);
    expect(r.files.some((f) => f.path === 'g/config.pbtxt')).toBe(true);
  });
});

describe('compileGraph: composing models', () => {
  it('applies node settings; null removes a scheduler, so the other can replace it', () => {
    const g = graphFixture('s', 1)
      .input('a', 'FP32', [-1])
      .input('sr', 'INT64', [1])
      .model('v', 'vad', {
        dynamic_batching: { max_queue_delay_microseconds: 5 },
        sequence_batching: null,
        max_batch_size: 1,
        decoupled: true,
        instance_group: [{ kind: 'KIND_CPU', count: 3 }],
      })
      .output('p', 'FP32', [1])
      .feed('a', 'v', 'input')
      .feed('sr', 'v', 'sr')
      .emit('v', 'output', 'p')
      .doc();
    const c = config(compileGraph(g, cat).files, 'vad/config.pbtxt');
    expect(c.dynamic_batching).toEqual({ max_queue_delay_microseconds: 5 });
    expect(c.sequence_batching).toBeUndefined();
    expect(c.model_transaction_policy).toEqual({ decoupled: true });
    expect(c.instance_group).toEqual([{ kind: 'KIND_CPU', count: 3 }]);
    const bare = {
      ...g,
      nodes: g.nodes.map((n) =>
        n.id === 'v' && n.kind === 'model'
          ? { ...n, params: { ...n.params, settings: { sequence_batching: null } } }
          : n,
      ),
    };
    expect(config(compileGraph(bare, cat).files, 'vad/config.pbtxt').sequence_batching).toBeUndefined();
  });

  it('reports one model used with two different settings', () => {
    const g = graphFixture('c', 4)
      .input('X', 'FP32', [-1])
      .model('a', 'identity', { max_batch_size: 4 })
      .model('b', 'identity', { max_batch_size: 2 })
      .output('Y', 'FP32', [-1])
      .feed('X', 'a', 'INPUT0')
      .wire('a', 'OUTPUT0', 'b', 'INPUT0')
      .emit('b', 'OUTPUT0', 'Y')
      .doc();
    const r = compileGraph(g, cat);
    expect(r.ok).toBe(false);
    expect(r.diagnostics.filter((d) => d.code === 'conflicting-model-settings')).toHaveLength(1);
  });
});

describe('compileGraph: conditions', () => {
  it('gate: decoupled Python gate with IN_/OUT_ names and a marker; README says decoupled, 23.07', () => {
    const r = compileGraph(gateGraph('gate').doc(), cat);
    const gate = config(r.files, 'g_c/config.pbtxt');
    expect(gate).toMatchObject({ backend: 'python', max_batch_size: 0, model_transaction_policy: { decoupled: true } });
    expect(gate.platform).toBeUndefined();
    expect(gate.input?.[0]).toEqual({ name: 'IN_y', data_type: 'TYPE_FP32', dims: [-1, -1] });
    expect(gate.output?.[0]?.name).toBe('OUT_y');
    expect(JSON.parse(gate.parameters?.ensemble_studio?.string_value ?? '')).toMatchObject({
      kind: 'condition',
      strategy: 'gate',
      ports: ['y'],
      inputs: { y: 'IN_y' },
      outputs: { y: 'OUT_y' },
    });
    const readme = r.files.find((f) => f.path === 'README.md')?.text ?? '';
    expect(readme).toMatch(/decoupled/);
    expect(readme).toMatch(/23\.07/);
    expect(readme).toMatch(/ModelStreamInfer/);
    expect(readme).toMatch(/generate_stream/);
  });

  it('error: a plain Python gate; README tells HTTP /infer', () => {
    const r = compileGraph(gateGraph('error').doc(), cat);
    expect(config(r.files, 'g_c/config.pbtxt').model_transaction_policy).toBeUndefined();
    expect(r.files.find((f) => f.path === 'README.md')?.text).toMatch(/\/v2\/models\/g\/infer/);
  });

  it('bls: one Python model named after the graph, no ensemble, composing configs beside it', () => {
    const r = compileGraph(gateGraph('bls').doc(), cat);
    const bls = config(r.files, 'g/config.pbtxt');
    expect(bls).toMatchObject({ name: 'g', backend: 'python', max_batch_size: 4 });
    expect(bls.ensemble_scheduling).toBeUndefined();
    expect(JSON.parse(bls.parameters?.ensemble_studio?.string_value ?? '')).toEqual({ kind: 'bls', graph: 'g' });
    expect(r.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['g/1/model.py', 'identity/config.pbtxt', 'optional_in/config.pbtxt']),
    );
    expect(r.files.some((f) => f.path === 'g/1/.gitkeep' || f.path.startsWith('g_c/'))).toBe(false);
    expect(r.files.find((f) => f.path === 'g/1/model.py')?.text).toMatch(/pb_utils\.InferenceRequest\(/);
  });

  it('bls: one step output may feed two graph outputs (each is read from the same tensor)', () => {
    const g = gateGraph('bls').output('Y2', 'FP32', [-1]).emit('head', 'OUTPUT0', 'Y2').doc();
    const r = compileGraph(g, cat);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.ok).toBe(true);
    expect(
      compileGraph(gateGraph('gate').output('Y2', 'FP32', [-1]).emit('head', 'OUTPUT0', 'Y2').doc(), cat).diagnostics,
    ).toContainEqual(expect.objectContaining({ code: 'output-wired-twice', nodeId: 'head' }));
  });

  it('flags a Triton too old for a decoupled gate', () => {
    expect(compileGraph(gateGraph('gate').doc(), cat, { tritonVersion: '23.05' }).diagnostics).toContainEqual(
      expect.objectContaining({ code: 'triton-too-old' }),
    );
    expect(
      compileGraph(gateGraph('gate').doc(), cat, { tritonVersion: '24.05' }).diagnostics.some(
        (d) => d.code === 'triton-too-old',
      ),
    ).toBe(false);
  });
});

describe('compileGraph: routers, ops, determinism', () => {
  it('copy router: generated model with in/out_i, typed from its producer, and a marker', () => {
    const g = graphFixture('rc', 4)
      .input('X', 'FP32', [-1])
      .model('m', 'identity')
      .router('r', 2)
      .output('A', 'FP32', [-1])
      .output('B', 'FP32', [-1])
      .feed('X', 'm', 'INPUT0')
      .wire('m', 'OUTPUT0', 'r', 'in')
      .emit('r', 'out_0', 'A')
      .emit('r', 'out_1', 'B')
      .doc();
    const r = compileGraph(g, cat);
    const rc = config(r.files, 'rc_r/config.pbtxt');
    expect(rc.input).toEqual([{ name: 'in', data_type: 'TYPE_FP32', dims: [-1, -1] }]);
    expect(rc.output?.map((o) => o.name)).toEqual(['out_0', 'out_1']);
    expect(JSON.parse(rc.parameters?.ensemble_studio?.string_value ?? '')).toEqual({
      kind: 'router',
      mode: 'copy',
      count: 2,
    });
    expect(r.files.find((f) => f.path === 'rc_r/1/model.py')?.text).toMatch(/np\.copy/);
  });

  it('op: generated model with OP_DEFS ports and the op marker', () => {
    const g = graphFixture('t', 0)
      .input('s', 'FP32', [-1, -1])
      .op('k', 'topk', { k: 3 })
      .output('v', 'FP32', [-1, -1])
      .output('i', 'INT64', [-1, -1])
      .feed('s', 'k', 'scores')
      .emit('k', 'values', 'v')
      .emit('k', 'indices', 'i')
      .doc();
    const op = config(compileGraph(g, cat).files, 't_k/config.pbtxt');
    expect(op.input).toEqual([{ name: 'scores', data_type: 'TYPE_FP32', dims: [-1, -1] }]);
    expect(JSON.parse(op.parameters?.ensemble_studio?.string_value ?? '')).toEqual({
      kind: 'op',
      op: 'topk',
      values: { k: 3 },
    });
  });

  it('is deterministic', () => {
    expect(compileGraph(gateGraph('bls').doc(), cat)).toEqual(compileGraph(gateGraph('bls').doc(), cat));
  });
});

describe('compileNodePreview', () => {
  it('returns the files behind one node', () => {
    const g = gateGraph('gate').doc();
    expect(compileNodePreview(g, cat, 'm').map((f) => f.path)).toEqual(['identity/config.pbtxt']);
    expect(compileNodePreview(g, cat, 'c').map((f) => f.path)).toEqual(['g_c/config.pbtxt', 'g_c/1/model.py']);
    expect(compileNodePreview(g, cat, 'X').map((f) => f.path)).toEqual(['g/config.pbtxt']);
    expect(compileNodePreview(gateGraph('bls').doc(), cat, 'c').map((f) => f.path)).toEqual([
      'g/config.pbtxt',
      'g/1/model.py',
    ]);
    expect(compileNodePreview(g, cat, 'nope')).toEqual([]);
  });
});
