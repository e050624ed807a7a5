import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeTestRepository } from '../testing/testRepository.ts';
import { leftoversIn } from '../testing/leftovers.ts';
import { tempDir } from '../testing/tempDir.ts';
import { BIN } from '../testing/cliTestUtil.ts';

/** `ensemble-studio serve` with its own TMPDIR; resolves with its URL once it listens. */
function serve(repo: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, 'serve', '--repo', repo, '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => reject(new Error(`serve exited ${code} before listening: ${out}`)));
  });
  return { child, url, exited };
}

describe('studio serve and the temp directory', () => {
  it('leaves nothing in TMPDIR after a start, a health check, an inference and a stop (onnxruntime telemetry off)', async () => {
    const tmp = tempDir('serve-tmp-');
    const repo = makeTestRepository();
    // The test run turns the runtime's telemetry off for itself; the studio must do so on its own.
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp, GRPC_PORT: '0', FORCE_COLOR: '0' };
    delete env.ORT_DISABLE_TELEMETRY;
    const before = readdirSync(tmp);

    const studio = serve(repo, env);
    const url = await studio.url;
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    const infer = await fetch(`${url}/v2/models/head/infer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256], data: new Array(256).fill(0.5) }],
      }),
    });
    expect(infer.status).toBe(200);
    expect(((await infer.json()) as { outputs: { name: string }[] }).outputs.map((o) => o.name)).toEqual(['logits']);
    studio.child.kill('SIGTERM');
    expect(await studio.exited).toBe(0);

    const after = readdirSync(tmp).sort();
    expect(before).toEqual([]);
    // Only tsx's compile cache (the launcher runs the studio under tsx) may remain; it lists everything else.
    expect(leftoversIn(tmp), `TMPDIR after serve: ${after.join(', ')}`).toEqual([]);
  });
});
