import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

// The stub's own tests are Python (tests/*.py: a peer that speaks PROTOCOL.md to a real stub.py process);
// this runs them under the python3 on PATH (one with numpy) and fails with unittest's report when they fail.
const testsDir = join(dirname(fileURLToPath(import.meta.url)), 'tests');

function runUnittest(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn('python3', ['-m', 'unittest', 'discover', '-s', testsDir, '-t', testsDir, '-p', 'test_*.py'], {
      cwd: testsDir,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    proc.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    proc.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    proc.on('error', reject);
    proc.on('close', (code) => resolve({ code, output }));
  });
}

test('stub.py passes its Python protocol tests (python3 -m unittest)', async () => {
  const { code, output } = await runUnittest();
  const speed = /stub speed: .*/.exec(output);
  if (speed) console.log(speed[0]);
  if (code !== 0) throw new Error(`python3 -m unittest failed (exit ${code}):\n${output}`);
  expect(output).toMatch(/\nOK/);
}, 300_000);
