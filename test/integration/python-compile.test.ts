// Golden files, determinism and Triton-validity of everything the compiler emits.
// UPDATE_GOLDEN=1 rewrites packages/core/src/compile/__golden__/<case>/.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileGraph } from '../../packages/core/src/compile/index.ts';
import type { RepoFile } from '../../packages/core/src/compile/types.ts';
import { fixtureCatalogue } from '../../packages/core/src/testing/fixtures.ts';
import { parsePbtxt, printPbtxt } from '../../packages/core/src/pbtxt/index.ts';
import { isEnsembleDecoupled, validateEnsembleConfigs } from '../../packages/core/src/pbtxt/validateEnsembleConfigs.ts';
import { validateModelConfig } from '../../packages/core/src/pbtxt/validateModelConfig.ts';
import type { ModelConfig } from '../../packages/core/src/pbtxt/modelConfig.ts';
import { GOLDEN_CASES } from '../python/fixtures.ts';
import { HARNESS_DIR, pythonSyntaxErrors, requirePythonNumpy, writeRepo } from '../python/harness.ts';

const GOLDEN = join(HARNESS_DIR, '..', '..', 'packages', 'core', 'src', 'compile', '__golden__');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

/** A case's golden form: every text file by path, plus `__files.json` listing the whole file map. */
function goldenForm(files: RepoFile[]): Record<string, string> {
  const form: Record<string, string> = {};
  for (const f of files) if (f.text !== undefined && f.text !== '') form[f.path] = f.text;
  const map = files.map((f) => (f.copyFrom !== undefined ? { path: f.path, copyFrom: f.copyFrom } : { path: f.path }));
  form['__files.json'] = `${JSON.stringify(map, null, 2)}\n`;
  return form;
}

function readGolden(name: string, paths: string[]): Record<string, string | null> {
  return Object.fromEntries(
    paths.map((p) => {
      const file = join(GOLDEN, name, p);
      return [p, existsSync(file) ? readFileSync(file, 'utf8') : null];
    }),
  );
}

describe('compiler golden files', () => {
  for (const [name, make] of Object.entries(GOLDEN_CASES)) {
    it(`${name} matches its golden files`, () => {
      const form = goldenForm(compileGraph(make(), fixtureCatalogue()).files);
      if (UPDATE) {
        rmSync(join(GOLDEN, name), { recursive: true, force: true });
        for (const [p, text] of Object.entries(form)) {
          mkdirSync(dirname(join(GOLDEN, name, p)), { recursive: true });
          writeFileSync(join(GOLDEN, name, p), text);
        }
      }
      const listed = JSON.parse(readFileSync(join(GOLDEN, name, '__files.json'), 'utf8')) as { path: string }[];
      const goldenPaths = [
        '__files.json',
        ...listed.map((f) => f.path).filter((p) => existsSync(join(GOLDEN, name, p))),
      ];
      expect(form).toEqual(readGolden(name, [...new Set([...Object.keys(form), ...goldenPaths])]));
    });
  }
});

describe('compiler output is deterministic and valid for Triton', () => {
  beforeAll(() => requirePythonNumpy());

  for (const [name, make] of Object.entries(GOLDEN_CASES)) {
    it(`${name}: same graph → byte-identical files`, () => {
      const a = compileGraph(make(), fixtureCatalogue());
      const b = compileGraph(JSON.parse(JSON.stringify(make())), fixtureCatalogue());
      expect(b.files).toEqual(a.files);
      expect(a.ok).toBe(true);
    });

    it(`${name}: every config.pbtxt parses back and reprints identically`, () => {
      const { files } = compileGraph(make(), fixtureCatalogue());
      const configs = files.filter((f) => f.path.endsWith('/config.pbtxt'));
      expect(configs.length).toBeGreaterThan(0);
      for (const f of configs) {
        const parsed = parsePbtxt(f.text!);
        if (!parsed.ok)
          throw new Error(`${f.path}: ${parsed.error.message} at ${parsed.error.line}:${parsed.error.column}`);
        expect(parsed.config.name).toBe(f.path.split('/')[0]);
        expect(printPbtxt(parsed.config)).toBe(f.text);
        for (const s of parsed.config.ensemble_scheduling?.step ?? []) expect(s.model_version).toBe(-1);
      }
    });

    it(`${name}: every config passes validateModelConfig and validateEnsembleConfigs with no errors`, () => {
      const { files } = compileGraph(make(), fixtureCatalogue());
      const configs: Record<string, ModelConfig> = {};
      for (const f of files.filter((x) => x.path.endsWith('/config.pbtxt'))) {
        const parsed = parsePbtxt(f.text!);
        if (!parsed.ok) throw new Error(parsed.error.message);
        const dir = f.path.split('/')[0]!;
        configs[dir] = parsed.config;
        expect(validateModelConfig(parsed.config, { dirName: dir }).filter((d) => d.severity === 'error')).toEqual([]);
      }
      expect(validateEnsembleConfigs(configs).filter((d) => d.severity === 'error')).toEqual([]);
      const entry = make().name;
      expect(isEnsembleDecoupled(entry, configs)).toBe(name === 'condition_gate');
    });

    it(`${name}: every generated Python file is valid Python`, () => {
      const { files } = compileGraph(make(), fixtureCatalogue());
      const repo = writeRepo(files);
      const py = files.filter((f) => f.path.endsWith('.py')).map((f) => join(repo, f.path));
      expect(pythonSyntaxErrors(py)).toEqual({});
    });
  }
});
