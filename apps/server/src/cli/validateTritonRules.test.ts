import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/tempDir.ts';
import { validateCommand } from './commands/validate.ts';

/** Writes `files` (path → text) into a fresh repository; a path ending in '/' makes an empty directory. */
function repoOf(files: Record<string, string>): string {
  const dir = tempDir('studio-triton-rules-');
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p.endsWith('/') ? p : join(p, '..')), { recursive: true });
    if (!p.endsWith('/')) writeFileSync(join(dir, p), text);
  }
  return dir;
}

async function validate(
  files: Record<string, string>,
): Promise<{ code: number; ok: boolean; errors: string[]; warnings: string[] }> {
  const out: string[] = [];
  const code = await validateCommand(['--repo', repoOf(files), '--json'], {
    out: (l) => out.push(l),
    err: (l) => out.push(l),
    defaultRepo: '.',
  });
  const { ok, diagnostics } = JSON.parse(out.join('\n')) as {
    ok: boolean;
    diagnostics: { severity: string; message: string }[];
  };
  const of = (s: string) => diagnostics.filter((d) => d.severity === s).map((d) => d.message);
  return { code, ok, errors: of('error'), warnings: of('warning') };
}

const io = (name: string, extra = '') => `{ name: "${name}" data_type: TYPE_FP32 dims: [ 16 ] ${extra}}`;
const model = (name: string, extra = '') =>
  `name: "${name}"\nbackend: "python"\nmax_batch_size: 4\ninput [ ${io('INPUT0')} ]\noutput [ ${io('OUTPUT0')} ]\n${extra}`;
const ensemble = (name: string, steps: string, outputs = io('prob')) =>
  `name: "${name}"\nplatform: "ensemble"\nmax_batch_size: 4\ninput [ ${io('data')} ]\noutput [ ${outputs} ]\nensemble_scheduling { step [ ${steps} ] }\n`;
const step = (m: string, out = 'prob', version = -1) =>
  `{ model_name: "${m}" model_version: ${version} input_map { key: "INPUT0" value: "data" } output_map { key: "OUTPUT0" value: "${out}" } }`;
const PY = 'class TritonPythonModel:\n    def execute(self, requests):\n        return []\n';

describe("studio validate against Triton's config rules", () => {
  it("reports an input without data_type in Triton's words instead of crashing", async () => {
    const r = await validate({
      'm/config.pbtxt': model('m').replace('data_type: TYPE_FP32 dims: [ 16 ] }', 'dims: [ 16 ] }'),
      'm/1/model.py': PY.replace('class', '# no auto_complete_config\nclass'),
    });
    expect(r.errors.join('\n')).not.toMatch(/Cannot read|undefined/);
    // A Python model with its file may still get the data type from auto_complete_config: a warning.
    expect(r.warnings.join('\n')).toContain("model input 'INPUT0' does not specify 'data_type' for m");
    const strict = await validate({
      'm/config.pbtxt': model('m').replace('data_type: TYPE_FP32 dims: [ 16 ] }', 'dims: [ 16 ] }'),
    });
    expect(strict.errors).toContain("model input 'INPUT0' must specify 'data_type' for m");
  });

  it("reports an ensemble step without model_name in Triton's words, with JSON out", async () => {
    const r = await validate({
      'm/config.pbtxt': model('m'),
      'm/1/model.py': PY,
      'e/config.pbtxt': ensemble(
        'e',
        `${step('m', 'mid')}, { model_version: -1 input_map { key: "INPUT0" value: "mid" } output_map { key: "OUTPUT0" value: "prob" } }`,
      ),
      'e/1/': '',
    });
    expect(r.code).toBe(1);
    expect(r.errors).toContain("must specify 'model_name' in step 1 of ensemble 'e'");
  });

  it('refuses a model with no version to serve, and a step version its model does not serve', async () => {
    expect((await validate({ 'm/config.pbtxt': model('m') })).errors.join('\n')).toContain(
      "at least one version must be available under the version policy of model 'm'",
    );
    const pinned = {
      'simple/config.pbtxt': model('simple', 'version_policy: { all {} }'),
      'simple/1/model.py': PY,
      'e/config.pbtxt': ensemble('e', step('simple', 'prob', 2)),
      'e/1/': '',
    };
    expect((await validate(pinned)).errors.join('\n')).toContain(
      "ensemble 'e' depends on 'simple' whose required version 2 is not loaded",
    );
    expect((await validate({ ...pinned, 'simple/2/model.py': PY })).errors).toEqual([]);
  });

  it('refuses two ensemble outputs from different decoupled steps', async () => {
    const r = await validate({
      'gen/config.pbtxt': model('gen', 'model_transaction_policy { decoupled: true }'),
      'gen/1/model.py': PY,
      'e/config.pbtxt': ensemble(
        'e',
        `${step('gen', 'prob')}, ${step('gen', 'prob2')}`,
        `${io('prob')}, ${io('prob2')}`,
      ),
      'e/1/': '',
    });
    expect(r.errors).toContain(
      "in ensemble e, step of model 'e' receives inputs originated from different decoupled models",
    );
  });

  it('accepts a Python model with an EXECUTION_ENV_PATH parameter', async () => {
    const env =
      'parameters: { key: "EXECUTION_ENV_PATH" value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }';
    const r = await validate({ 'm/config.pbtxt': model('m', env), 'm/1/model.py': PY });
    expect([r.code, r.errors]).toEqual([0, []]);
  });

  it('refuses a model whose backend cannot be determined, and a runtime outside the backend directory', async () => {
    const r = await validate({
      'nodelim/config.pbtxt': 'max_batch_size: 1\n',
      'nodelim/1/': '',
      'esc/config.pbtxt': `${model('esc')}runtime: "../x/libtriton_identity.so"\n`,
      'esc/1/model.py': PY,
    });
    expect(r.errors).toContain(
      "Invalid model name: Could not determine backend for model 'nodelim' with no backend in model configuration. Expected model name of the form 'model.<backend_name>'.",
    );
    expect(r.errors.join('\n')).toContain(
      "backend library name '../x/libtriton_identity.so' escapes backend directory",
    );
  });
});

describe('studio validate NAME --effective', () => {
  it('prints the config Triton would report after load, as config.pbtxt', async () => {
    const repo = repoOf({
      'gen/config.pbtxt': model('gen', 'model_transaction_policy { decoupled: true }'),
      'gen/1/model.py': PY,
      'e/config.pbtxt': ensemble('e', step('gen')),
      'e/1/': '',
    });
    const print = async (name: string) => {
      const out: string[] = [];
      const code = await validateCommand([name, '--repo', repo, '--effective'], {
        out: (l) => out.push(l),
        err: (l) => out.push(l),
        defaultRepo: '.',
      });
      return { code, text: out.join('\n') };
    };
    const gen = await print('gen');
    expect(gen.code).toBe(0);
    expect(gen.text).toContain('default_model_filename: "model.py"');
    expect(gen.text).toMatch(/instance_group \[\s*\{\s*name: "gen"\s*count: 1\s*kind: KIND_CPU/);
    expect(gen.text).toMatch(/version_policy \{\s*latest: \{ num_versions: 1 \}/);
    expect((await print('e')).text).toMatch(/model_transaction_policy \{\s*decoupled: true\s*\}/);
  });
});
