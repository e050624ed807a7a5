// The shipped example graphs (ocr, vad-stream) compile, under every condition strategy, to configs
// Triton accepts and valid Python.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../apps/server/src/repo/loadRepository.ts';
import type { Repository } from '../../apps/server/src/repo/types.ts';
import { compileGraph } from '../../packages/core/src/compile/index.ts';
import type { ConditionStrategy, GraphDoc } from '../../packages/core/src/graph/types.ts';
import { parsePbtxt } from '../../packages/core/src/pbtxt/index.ts';
import type { ModelConfig } from '../../packages/core/src/pbtxt/modelConfig.ts';
import { validateEnsembleConfigs } from '../../packages/core/src/pbtxt/validateEnsembleConfigs.ts';
import { validateModelConfig } from '../../packages/core/src/pbtxt/validateModelConfig.ts';
import { HARNESS_DIR, pythonSyntaxErrors, requirePythonNumpy, writeRepo } from '../python/harness.ts';

let repo: Repository;
beforeAll(async () => {
  requirePythonNumpy();
  repo = await loadRepository(join(HARNESS_DIR, '..', '..', 'examples', 'model_repository'));
});

function withStrategy(g: GraphDoc, strategy: ConditionStrategy): GraphDoc {
  const copy = JSON.parse(JSON.stringify(g)) as GraphDoc;
  for (const n of copy.nodes) if (n.kind === 'condition') n.params.strategy = strategy;
  return copy;
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
          expect(validateModelConfig(parsed.config, { dirName: dir }).filter((d) => d.severity === 'error')).toEqual([]);
        }
        expect(validateEnsembleConfigs(configs).filter((d) => d.severity === 'error')).toEqual([]);
        for (const f of r.files) if (f.copyFrom) expect(existsSync(join(repo.dir, f.copyFrom)), f.copyFrom).toBe(true);
        const dir = writeRepo(r.files);
        expect(pythonSyntaxErrors(r.files.filter((f) => f.path.endsWith('.py')).map((f) => join(dir, f.path)))).toEqual({});
      });
    }
  }

  it('vad-stream README asks for the sequence parameters', () => {
    const r = compileGraph(repo.graphs['vad-stream']!, repo.catalogue);
    expect(r.files.find((f) => f.path === 'README.md')?.text).toMatch(/sequence_id.*sequence_start.*sequence_end/s);
  });
});
