import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN } from '../testing/cliTestUtil.ts';
import { processAlive } from '../testing/processAlive.ts';
import { makeTestRepository } from '../testing/testRepository.ts';

// `serve` stopped by SIGTERM before it listens: it ends the loads under way (a Python stub still in `initialize` is
// killed), says it is shutting down and exits 0, as after listening. Before, Node's default killed it at once (the
// launcher exited 1), and onnxruntime-node could abort the process ("terminate called after throwing an instance of
// 'Napi::Error'") when it went down with sessions loading.

/** A test repository (ONNX models) plus `slow`, whose `initialize` writes its pid to `marker` and sleeps 120 s. */
function repoWithSlowModel(): { repo: string; marker: string } {
  const repo = makeTestRepository();
  const marker = join(repo, 'slow-initializing');
  mkdirSync(join(repo, 'slow', '1'), { recursive: true });
  writeFileSync(
    join(repo, 'slow', 'config.pbtxt'),
    `backend: "python"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] } ]
`,
  );
  writeFileSync(
    join(repo, 'slow', '1', 'model.py'),
    `import os, time

class TritonPythonModel:
    def initialize(self, args):
        with open(${JSON.stringify(marker)}, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(120)

    def execute(self, requests):
        return []
`,
  );
  return { repo, marker };
}

async function stopWhile(when: 'starting' | 'initializing') {
  const { repo, marker } = repoWithSlowModel();
  const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo, '--port', '0', '--grpc-port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  if (when === 'initializing') await expect.poll(() => existsSync(marker), { timeout: 30_000 }).toBe(true);
  else await new Promise((r) => setTimeout(r, 1500));
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(out).toMatch(/SIGTERM: shutting down/);
  expect(out).not.toMatch(/listening on|terminate called|Napi/);
  if (existsSync(marker)) expect(processAlive(Number(readFileSync(marker, 'utf8')))).toBe(false);
}

describe('serve stopped by SIGTERM before it listens', () => {
  it('1.5 s into its start (modules, repository, loads): shuts down and exits 0', () => stopWhile('starting'), 60_000);

  it(
    'while a Python model is in `initialize`: its stub is killed, the rest shut down, exit 0',
    () => stopWhile('initializing'),
    60_000,
  );
});
