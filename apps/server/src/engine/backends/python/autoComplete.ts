import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ModelConfig } from '@ensemble-studio/core';
import { FrameReader, FrameWriter } from './frames.ts';
import { startStub, type StubChild } from './stubProcess.ts';

const STUB_DIR = join(dirname(fileURLToPath(import.meta.url)), 'stub');
const TIMEOUT_MS = 30_000;

/** The interpreter that runs Python models: STUDIO_PYTHON, else `python3` on PATH (`--python` sets STUDIO_PYTHON). */
export function pythonInterpreter(): string {
  return process.env.STUDIO_PYTHON || 'python3';
}

/** Whether a model.py defines `auto_complete_config` (only then is a process started for it). */
export function definesAutoComplete(modelFile: string): boolean {
  try {
    return /\bdef\s+auto_complete_config\s*\(/.test(readFileSync(modelFile, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Runs a model's `auto_complete_config(auto_complete_model_config)` in a python3 stub, as Triton does when it
 * loads a Python model, and returns the completed config (inputs, outputs, max_batch_size, dynamic batching,
 * transaction policy …). Rejects with the model's error (and traceback) or why python could not run it.
 * @example const config = await autoCompletePython('python3', '/repo/m/1/model.py', { name: 'm', backend: 'python' })
 */
export async function autoCompletePython(python: string, modelFile: string, config: ModelConfig): Promise<ModelConfig> {
  const env = {
    ...process.env,
    PYTHONPATH: [STUB_DIR, dirname(modelFile), process.env.PYTHONPATH].filter(Boolean).join(':'),
    PYTHONDONTWRITEBYTECODE: '1',
  };
  let proc: StubChild;
  try {
    proc = await startStub({
      file: python,
      args: ['-u', join(STUB_DIR, 'stub.py')],
      env,
      cwd: dirname(modelFile),
      stdout: false,
    });
  } catch (err) {
    throw new Error(
      `could not start python interpreter '${python}' for auto_complete_config: ${(err as Error).message}`,
      { cause: err },
    );
  }
  const { stderr: errPipe, fromPy, toPy } = proc.pipes;
  return new Promise<ModelConfig>((resolve, reject) => {
    const stderr: string[] = [];
    let done = false;
    const finish = (err: Error | undefined, out?: ModelConfig) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      proc.kill('SIGKILL');
      if (err) reject(err);
      else resolve(out!);
    };
    const timer = setTimeout(
      () => finish(new Error(`auto_complete_config did not return within ${TIMEOUT_MS / 1000} s`)),
      TIMEOUT_MS,
    );
    errPipe.on('data', (c: Buffer) => {
      if (stderr.length < 200) stderr.push(c.toString('utf8'));
    });
    proc.onExit((code) =>
      finish(
        new Error(
          `python exited (code ${code}) in auto_complete_config: ${stderr.join('').trim().split('\n').slice(-6).join('\n')}`,
        ),
      ),
    );
    const reader = new FrameReader();
    fromPy.on('data', (chunk: Buffer) => {
      for (const f of reader.push(chunk)) {
        if (f.header.type === 'auto_completed') finish(undefined, f.header.config as ModelConfig);
        else if (f.header.type === 'failed')
          finish(
            new Error(
              `auto_complete_config failed: ${String(f.header.message)}${typeof f.header.traceback === 'string' ? `\n${f.header.traceback.trimEnd()}` : ''}`,
            ),
          );
      }
    });
    toPy.on('error', () => {
      /* exit reports it */
    });
    for (const b of new FrameWriter().finish({ type: 'auto_complete', model_file: modelFile, config })) toPy.write(b);
  });
}
