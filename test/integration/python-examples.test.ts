// The shipped example graphs (ocr, vad-stream) compile, under every condition strategy, to configs
// Triton accepts and valid Python.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue, CatalogueModel } from '../../packages/core/src/catalogue/types.ts';
import { compileGraph } from '../../packages/core/src/compile/index.ts';
import type { ConditionStrategy, GraphDoc } from '../../packages/core/src/graph/types.ts';
import { parsePbtxt } from '../../packages/core/src/pbtxt/index.ts';
import type { ModelConfig, ModelInput } from '../../packages/core/src/pbtxt/modelConfig.ts';
import { fromConfigType } from '../../packages/core/src/tensor/dtype.ts';
import { validateEnsembleConfigs } from '../../packages/core/src/pbtxt/validateEnsembleConfigs.ts';
import { validateModelConfig } from '../../packages/core/src/pbtxt/validateModelConfig.ts';
import { HARNESS_DIR, pythonSyntaxErrors, requirePythonNumpy, writeRepo } from '../python/harness.ts';

const EXAMPLES = join(HARNESS_DIR, '..', '..', 'examples', 'model_repository');

/** A minimal catalogue + graphs read straight from the examples (the server's loader does more). */
function loadExamples(dir: string): { dir: string; catalogue: Catalogue; graphs: Record<string, GraphDoc> } {
  const models: Record<string, CatalogueModel> = {};
  const graphs: Record<string, GraphDoc> = {};
  for (const name of readdirSync(dir).sort()) {
    const studio = join(dir, name, 'studio.json');
    if (existsSync(studio)) graphs[name] = JSON.parse(readFileSync(studio, 'utf8')) as GraphDoc;
    const cfgPath = join(dir, name, 'config.pbtxt');
    if (!existsSync(cfgPath)) continue;
    const parsed = parsePbtxt(readFileSync(cfgPath, 'utf8'));
    if (!parsed.ok) throw new Error(`${cfgPath}: ${parsed.error.message}`);
    const c = parsed.config;
    const spec = (t: ModelInput) => ({
      name: t.name,
      datatype: fromConfigType(t.data_type)!,
      dims: t.dims,
      ...(t.optional ? { optional: true } : {}),
    });
    models[name] = {
      name,
      versions: [1],
      platform: c.platform ?? '',
      backend: c.backend ?? '',
      maxBatchSize: c.max_batch_size ?? 0,
      inputs: (c.input ?? []).map(spec),
      outputs: (c.output ?? []).map(spec),
      decoupled: c.model_transaction_policy?.decoupled === true,
      config: c,
    };
  }
  return { dir, catalogue: { models }, graphs };
}

const repo = loadExamples(EXAMPLES);
beforeAll(() => requirePythonNumpy());

function withStrategy(g: GraphDoc, strategy: ConditionStrategy): GraphDoc {
  const nodes = g.nodes.map((n) => (n.kind === 'condition' ? { ...n, params: { ...n.params, strategy } } : n));
  return { ...g, nodes };
}

describe('example graphs', () => {
  for (const name of ['ocr', 'vad-stream']) {
    for (const strategy of ['gate', 'error', 'bls'] as const) {
      it(`${name} (${strategy}) compiles to valid configs and Python`, () => {
        const graph = repo.graphs[name];
        expect(graph).toBeDefined();
        const r = compileGraph(withStrategy(graph!, strategy), repo.catalogue);
        expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const configs: Record<string, ModelConfig> = {};
        for (const f of r.files.filter((x) => x.path.endsWith('/config.pbtxt'))) {
          const parsed = parsePbtxt(f.text!);
          if (!parsed.ok) throw new Error(`${f.path}: ${parsed.error.message}`);
          const dir = f.path.split('/')[0]!;
          configs[dir] = parsed.config;
          expect(validateModelConfig(parsed.config, { dirName: dir }).filter((d) => d.severity === 'error')).toEqual(
            [],
          );
        }
        expect(validateEnsembleConfigs(configs).filter((d) => d.severity === 'error')).toEqual([]);
        for (const f of r.files) if (f.copyFrom) expect(existsSync(join(repo.dir, f.copyFrom)), f.copyFrom).toBe(true);
        const dir = writeRepo(r.files);
        expect(pythonSyntaxErrors(r.files.filter((f) => f.path.endsWith('.py')).map((f) => join(dir, f.path)))).toEqual(
          {},
        );
      });
    }
  }

  it('vad-stream README asks for the sequence parameters', () => {
    const r = compileGraph(repo.graphs['vad-stream']!, repo.catalogue);
    expect(r.files.find((f) => f.path === 'README.md')?.text).toMatch(/sequence_id.*sequence_start.*sequence_end/s);
  });
});
