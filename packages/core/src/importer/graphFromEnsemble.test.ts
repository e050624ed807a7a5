import { describe, expect, it } from 'vitest';
import type { Catalogue } from '../catalogue/types.ts';
import { addSubGraph, fixtureCatalogue } from '../testing/fixtures.ts';
import { parsePbtxt } from '../pbtxt/index.ts';
import { validateGraph } from '../validate/validateGraph.ts';
import { catalogueModelFromConfig } from './catalogueModel.ts';
import { graphFromEnsemble } from './graphFromEnsemble.ts';

function catalogue(configs: Record<string, string>): Catalogue {
  const models: Catalogue['models'] = {};
  for (const [name, text] of Object.entries(configs)) {
    const r = parsePbtxt(text);
    if (!r.ok) throw new Error(`${name}: ${r.error.message}`);
    models[name] = catalogueModelFromConfig(name, r.config, [1]);
  }
  return { models };
}
const edgesOf = (g: { edges: readonly { source: string; sourcePort: string; target: string; targetPort: string }[] }) =>
  g.edges.map((e) => `${e.source}.${e.sourcePort} -> ${e.target}.${e.targetPort}`).sort();

// qa/L0_simple_ensemble: ensemble_partial_add_sub maps INPUT1 into both inputs of `simple`.
const PARTIAL_ADD_SUB = {
  ensemble_partial_add_sub: `
name: "ensemble_partial_add_sub"
platform: "ensemble"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]
ensemble_scheduling {
  step [
    {
      model_name: "simple"
      model_version: -1
      input_map { key: "INPUT0" value: "INPUT1" }
      input_map { key: "INPUT1" value: "INPUT1" }
      output_map { key: "OUTPUT0" value: "OUTPUT0" }
    },
    {
      model_name: "simple"
      model_version: -1
      input_map { key: "INPUT0" value: "INPUT0" }
      input_map { key: "INPUT1" value: "INPUT0" }
      output_map { key: "OUTPUT1" value: "OUTPUT1" }
    }
  ]
}`,
  simple: `
name: "simple"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "INPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "OUTPUT1" data_type: TYPE_INT32 dims: [ 16 ] } ]`,
};

// tutorials Conceptual_Guide/Part_5: preprocessing (python) → text_detection (onnx) → postprocessing.
const TUTORIAL = {
  ensemble_model: `
name: "ensemble_model"
platform: "ensemble"
max_batch_size: 256
input [ { name: "input_image" data_type: TYPE_UINT8 dims: [ -1 ] } ]
output [ { name: "cropped_images" data_type: TYPE_FP32 dims: [ -1, 32, 100, 1 ] } ]
ensemble_scheduling {
  step [
    { model_name: "detection_preprocessing" model_version: -1
      input_map { key: "detection_preprocessing_input" value: "input_image" }
      output_map { key: "detection_preprocessing_output" value: "preprocessed_image" } },
    { model_name: "text_detection" model_version: -1
      input_map { key: "input_images:0" value: "preprocessed_image" }
      output_map [ { key: "feature_fusion/Conv_7/Sigmoid:0" value: "Sigmoid:0" }, { key: "feature_fusion/concat_3:0" value: "concat_3:0" } ] },
    { model_name: "detection_postprocessing" model_version: -1
      input_map [ { key: "detection_postprocessing_input_1" value: "Sigmoid:0" }, { key: "detection_postprocessing_input_2" value: "concat_3:0" },
                  { key: "detection_postprocessing_input_3" value: "preprocessed_image" } ]
      output_map { key: "detection_postprocessing_output" value: "cropped_images" } }
  ]
}`,
  detection_preprocessing: `
name: "detection_preprocessing"
backend: "python"
max_batch_size: 256
input [ { name: "detection_preprocessing_input" data_type: TYPE_UINT8 dims: [ -1 ] } ]
output [ { name: "detection_preprocessing_output" data_type: TYPE_FP32 dims: [ -1, -1, 3 ] } ]
instance_group [ { kind: KIND_CPU } ]`,
  text_detection: `
name: "text_detection"
platform: "onnxruntime_onnx"
max_batch_size: 256
input [ { name: "input_images:0" data_type: TYPE_FP32 dims: [ -1, -1, 3 ] } ]
output [ { name: "feature_fusion/Conv_7/Sigmoid:0" data_type: TYPE_FP32 dims: [ -1, -1, 1 ] },
         { name: "feature_fusion/concat_3:0" data_type: TYPE_FP32 dims: [ -1, -1, 5 ] } ]`,
  detection_postprocessing: `
name: "detection_postprocessing"
backend: "python"
max_batch_size: 256
input [ { name: "detection_postprocessing_input_1" data_type: TYPE_FP32 dims: [ -1, -1, 1 ] },
        { name: "detection_postprocessing_input_2" data_type: TYPE_FP32 dims: [ -1, -1, 5 ] },
        { name: "detection_postprocessing_input_3" data_type: TYPE_FP32 dims: [ -1, -1, 3 ] } ]
output [ { name: "detection_postprocessing_output" data_type: TYPE_FP32 dims: [ -1, 32, 100, 1 ] } ]`,
};

describe('graphFromEnsemble', () => {
  it('rebuilds the qa partial add/sub ensemble with fan-out into two ports of one step', () => {
    const { graph, diagnostics } = graphFromEnsemble('ensemble_partial_add_sub', catalogue(PARTIAL_ADD_SUB));
    expect(diagnostics).toEqual([]);
    expect(graph).toMatchObject({ name: 'ensemble_partial_add_sub', maxBatchSize: 8, version: 1 });
    expect(graph.nodes.map((n) => `${n.kind}:${n.id}`)).toEqual([
      'input:in:INPUT0',
      'input:in:INPUT1',
      'model:simple',
      'model:simple#2',
      'output:out:OUTPUT0',
      'output:out:OUTPUT1',
    ]);
    expect(edgesOf(graph)).toEqual(
      [
        'in:INPUT0.out -> simple#2.INPUT0',
        'in:INPUT0.out -> simple#2.INPUT1',
        'in:INPUT1.out -> simple.INPUT0',
        'in:INPUT1.out -> simple.INPUT1',
        'simple#2.OUTPUT1 -> out:OUTPUT1.in',
        'simple.OUTPUT0 -> out:OUTPUT0.in',
      ].sort(),
    );
    const cat = catalogue(PARTIAL_ADD_SUB);
    expect(validateGraph(graph, cat).filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('rebuilds the tutorial preprocessing → detection → postprocessing pipeline, laid out left to right', () => {
    const cat = catalogue(TUTORIAL);
    const { graph, diagnostics } = graphFromEnsemble('ensemble_model', cat);
    expect(diagnostics).toEqual([]);
    expect(edgesOf(graph)).toContain(
      'detection_preprocessing.detection_preprocessing_output -> detection_postprocessing.detection_postprocessing_input_3',
    );
    expect(edgesOf(graph)).toContain(
      'text_detection.feature_fusion/Conv_7/Sigmoid:0 -> detection_postprocessing.detection_postprocessing_input_1',
    );
    // In reading order: each step right of the one before it, or on a band below (the layout wraps for a laptop's canvas).
    const at = (id: string) => graph.nodes.find((n) => n.id === id)!.position;
    const path = [
      'in:input_image',
      'detection_preprocessing',
      'text_detection',
      'detection_postprocessing',
      'out:cropped_images',
    ].map(at);
    expect(path[0]).toEqual({ x: 0, y: 0 });
    for (let i = 1; i < path.length; i++)
      expect(path[i]!.x > path[i - 1]!.x || path[i]!.y > path[i - 1]!.y + 40).toBe(true);
    expect(validateGraph(graph, cat).filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('reports missing composing models and unproduced tensors as diagnostics', () => {
    const { ensemble_model, text_detection } = TUTORIAL;
    const { graph, diagnostics } = graphFromEnsemble('ensemble_model', catalogue({ ensemble_model, text_detection }));
    expect(diagnostics.map((d) => d.code)).toEqual(['missing-model', 'missing-model']);
    expect(diagnostics[0]).toMatchObject({ nodeId: 'detection_preprocessing', severity: 'error' });
    expect(graph.nodes.filter((n) => n.kind === 'model')).toHaveLength(3);
    expect(edgesOf(graph)).toContain('in:input_image.out -> detection_preprocessing.detection_preprocessing_input');
    const broken = catalogue({
      ...PARTIAL_ADD_SUB,
      ensemble_partial_add_sub: PARTIAL_ADD_SUB.ensemble_partial_add_sub.replace(
        'value: "INPUT0" }\n      input_map { key: "INPUT1" value: "INPUT0"',
        'value: "NOPE" }\n      input_map { key: "INPUT1" value: "INPUT0"',
      ),
    });
    expect(graphFromEnsemble('ensemble_partial_add_sub', broken).diagnostics).toEqual([
      expect.objectContaining({ code: 'unproduced-tensor', nodeId: 'simple#2', port: 'INPUT0' }),
    ]);
  });

  it('turns generated models back into router, condition and op nodes', () => {
    const cat = catalogue({
      ocr: `name: "ocr" platform: "ensemble" max_batch_size: 0
input [ { name: "image" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "a" data_type: TYPE_FP32 dims: [ -1 ] }, { name: "b" data_type: TYPE_INT64 dims: [ -1, -1 ] } ]
ensemble_scheduling { step [
  { model_name: "ocr_exit" model_version: -1 input_map { key: "IN_boxes" value: "image" } output_map { key: "OUT_boxes" value: "t1" } },
  { model_name: "ocr_r" model_version: -1 input_map { key: "in" value: "t1" } output_map [ { key: "out_0" value: "t2" }, { key: "out_1" value: "t3" } ] },
  { model_name: "ocr_k" model_version: -1 input_map { key: "scores" value: "t3" } output_map { key: "indices" value: "b" } },
  { model_name: "nobatch" model_version: -1 input_map { key: "INPUT0" value: "t2" } output_map { key: "OUTPUT0" value: "a" } } ] }`,
      ocr_exit: `name: "ocr_exit" backend: "python" input [ { name: "IN_boxes" data_type: TYPE_FP32 dims: [ -1 ] } ] output [ { name: "OUT_boxes" data_type: TYPE_FP32 dims: [ -1 ] } ]
model_transaction_policy { decoupled: true }
parameters { key: "ensemble_studio" value: { string_value: '{"expression":"len(boxes) == 0","inputs":{"boxes":"IN_boxes"},"kind":"condition","message":"m","outputs":{"boxes":"OUT_boxes"},"ports":["boxes"],"strategy":"gate"}' } }`,
      ocr_r: `name: "ocr_r" backend: "python" input [ { name: "in" data_type: TYPE_FP32 dims: [ -1 ] } ] output [ { name: "out_0" data_type: TYPE_FP32 dims: [ -1 ] }, { name: "out_1" data_type: TYPE_FP32 dims: [ -1 ] } ]
parameters { key: "ensemble_studio" value: { string_value: '{"count":2,"kind":"router","mode":"copy"}' } }`,
      ocr_k: `name: "ocr_k" backend: "python" input [ { name: "scores" data_type: TYPE_FP32 dims: [ -1, -1 ] } ] output [ { name: "indices" data_type: TYPE_INT64 dims: [ -1, -1 ] } ]
parameters { key: "ensemble_studio" value: { string_value: '{"kind":"op","op":"topk","values":{"k":3}}' } }`,
    });
    cat.models.nobatch = fixtureCatalogue().models.nobatch!;
    const { graph, diagnostics } = graphFromEnsemble('ocr', cat);
    expect(diagnostics).toEqual([]);
    const byId = Object.fromEntries(graph.nodes.map((n) => [n.id, n]));
    expect(byId.exit).toMatchObject({
      kind: 'condition',
      params: { expression: 'len(boxes) == 0', strategy: 'gate', ports: ['boxes'], message: 'm' },
    });
    expect(byId.r).toMatchObject({ kind: 'router', params: { mode: 'copy', count: 2 } });
    expect(byId.k).toMatchObject({ kind: 'op', params: { op: 'topk', values: { k: 3 } } });
    expect(edgesOf(graph)).toEqual([
      'exit.boxes -> r.in',
      'in:image.out -> exit.boxes',
      'k.indices -> out:b.in',
      'nobatch.OUTPUT0 -> out:a.in',
      'r.out_0 -> nobatch.INPUT0',
      'r.out_1 -> k.scores',
    ]);
  });

  it('reads a BLS export from its studio.json sidecar, and says so when it is missing', () => {
    const cat = catalogue({
      ocr: `name: "ocr" backend: "python" input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ] output [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]
parameters { key: "ensemble_studio" value: { string_value: '{"graph":"ocr","kind":"bls"}' } }`,
    });
    const missing = graphFromEnsemble('ocr', cat);
    expect(missing.diagnostics).toEqual([expect.objectContaining({ code: 'bls-without-sidecar', severity: 'error' })]);
    expect(missing.graph.nodes).toEqual([]);
    const sidecar = addSubGraph();
    expect(graphFromEnsemble('ocr', cat, { sidecar: JSON.parse(JSON.stringify(sidecar)) })).toEqual({
      graph: sidecar,
      diagnostics: [],
    });
    expect(graphFromEnsemble('ocr', cat, { sidecar: { version: 1 } }).diagnostics[0]?.code).toBe('invalid-sidecar');
  });

  it('refuses unknown names and non-ensembles with a diagnostic', () => {
    const cat = catalogue(PARTIAL_ADD_SUB);
    expect(graphFromEnsemble('nope', cat).diagnostics[0]?.code).toBe('unknown-ensemble');
    expect(graphFromEnsemble('simple', cat).diagnostics[0]?.code).toBe('not-an-ensemble');
  });
});
