// Node side of the Python harness: writes compiled files to disk and runs generated models with
// test/python/run_model.py, which drives the studio's real Python-backend stub (stub.py) over its frame protocol.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RepoFile } from '../../packages/core/src/compile/types.ts';
import type { ModelConfig } from '../../packages/core/src/pbtxt/modelConfig.ts';
import { tempDir } from '../support/tempDir.ts';

export const HARNESS_DIR = dirname(fileURLToPath(import.meta.url));

/** The interpreter the harness runs: STUDIO_PYTHON (as the engine), else `python3` on PATH. */
const PYTHON = process.env.STUDIO_PYTHON || 'python3';

/** Throws a clear message when python3 or numpy is missing (CI installs python3-numpy). */
export function requirePythonNumpy(): void {
  const r = spawnSync(PYTHON, ['-c', 'import numpy'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(
      `these tests need ${PYTHON} with numpy (apt install python3-numpy): ${r.error?.message ?? r.stderr}`,
    );
  }
}

/** Writes the text files of a compiled repository into a fresh `tempDir` (removed when the test finishes); returns the dir. */
export function writeRepo(files: RepoFile[], extra: Record<string, string> = {}): string {
  const root = tempDir('studio-repo-');
  for (const f of files) {
    if (f.text === undefined) continue;
    mkdirSync(dirname(join(root, f.path)), { recursive: true });
    writeFileSync(join(root, f.path), f.text);
  }
  for (const [path, text] of Object.entries(extra)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

export interface JsonTensor {
  datatype: string;
  shape: number[];
  data: (number | string | boolean)[];
}
export interface HarnessRequest {
  inputs: Record<string, JsonTensor>;
  correlation_id?: number;
  flags?: number;
  requested_output_names?: string[];
}
/**
 * One response: its outputs, or its error's message. `shared` lists the pairs of outputs (or an output and
 * `input:NAME`) whose arrays shared memory inside the model; only non-decoupled models are probed.
 */
export interface HarnessResponse {
  outputs: Record<string, JsonTensor> | null;
  error: string | null;
  shared: [string, string][];
}
export interface HarnessResult {
  responses: HarnessResponse[];
  final: boolean;
  flags: number[];
}
export interface HarnessCall {
  model: string;
  inputs: string[];
  correlation_id: number;
  flags: number;
}
export interface HarnessOutput {
  decoupled: boolean;
  results: HarnessResult[];
  calls: HarnessCall[];
  error: string | null;
  traceback?: string;
}

/**
 * Runs `<repo>/<model>/1/model.py` in the studio's real stub process with `config` as its model_config
 * (init, one execute holding every request, finalize); `stubsFile`'s MODELS answer its BLS calls.
 */
export function runModel(
  repo: string,
  model: string,
  config: ModelConfig,
  requests: HarnessRequest[],
  stubsFile?: string,
): HarnessOutput {
  const job = {
    model_py: join(repo, model, '1', 'model.py'),
    model_repository: join(repo, model),
    config,
    requests,
    ...(stubsFile ? { stubs_file: stubsFile } : {}),
  };
  const out = execFileSync(PYTHON, [join(HARNESS_DIR, 'run_model.py')], {
    input: JSON.stringify(job),
    encoding: 'utf8',
  });
  const parsed = JSON.parse(out) as HarnessOutput;
  if (parsed.error) throw new Error(`${parsed.error}\n${parsed.traceback ?? ''}`);
  return parsed;
}

/** Parses every file with Python's `ast` and returns `{path: error}` for those that fail. */
export function pythonSyntaxErrors(paths: string[]): Record<string, string> {
  const src = [
    'import ast, json, sys',
    'bad = {}',
    'for p in json.loads(sys.stdin.read()):',
    '    try:',
    '        ast.parse(open(p, encoding="utf-8").read(), p)',
    '    except SyntaxError as e:',
    '        bad[p] = str(e)',
    'print(json.dumps(bad))',
  ].join('\n');
  return JSON.parse(execFileSync(PYTHON, ['-c', src], { input: JSON.stringify(paths), encoding: 'utf8' })) as Record<
    string,
    string
  >;
}
