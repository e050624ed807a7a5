import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../testing/tempDir.ts';
import { call, startTestServer } from '../../testing/testServer.ts';
import { MAX_MODEL_SOURCE_BYTES } from './modelSource.ts';

const SOURCE =
  'import triton_python_backend_utils as pb_utils\n\nclass TritonPythonModel:\n    def execute(self, requests):\n        raise pb_utils.TritonModelException("boom")\n';
const config = (name: string, backend = 'backend: "python"') =>
  `name: "${name}"\n${backend}\nmax_batch_size: 0\ninput [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] } ]\noutput [ { name: "y" data_type: TYPE_FP32 dims: [ 1 ] } ]\n`;

let s: Awaited<ReturnType<typeof startTestServer>>;
beforeAll(async () => {
  const repo = tempDir('model-source-');
  const outside = tempDir('model-source-outside-');
  const file = (p: string, text: string) => {
    mkdirSync(join(repo, p, '..'), { recursive: true });
    writeFileSync(join(repo, p), text);
  };
  file('add_one/config.pbtxt', config('add_one'));
  file('add_one/1/model.py', 'old version');
  file('add_one/3/model.py', SOURCE);
  file('big/config.pbtxt', config('big'));
  file('big/1/model.py', `# ${'x'.repeat(MAX_MODEL_SOURCE_BYTES)}\n`);
  file('onnx_only/config.pbtxt', config('onnx_only', 'platform: "onnxruntime_onnx"'));
  file('leak/config.pbtxt', config('leak'));
  mkdirSync(join(repo, 'leak/1'), { recursive: true });
  writeFileSync(join(outside, 'secret.py'), 'SECRET = 1\n');
  symlinkSync(join(outside, 'secret.py'), join(repo, 'leak/1/model.py'));
  file('escape/config.pbtxt', `${config('escape')}default_model_filename: "../../add_one/3/model.py"\n`);
  file('escape/1/.keep', '');
  s = await startTestServer({ repo });
});
afterAll(async () => s?.close());

describe('GET /api/models/:name/source', () => {
  it("returns the latest version's model.py with its repository-relative path", async () => {
    const r = await call(`${s.url}/api/models/add_one/source`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      model: 'add_one',
      path: 'add_one/3/model.py',
      bytes: Buffer.byteLength(SOURCE),
      text: SOURCE,
    });
  });

  it('refuses a model that is not Python, an unknown one and a bad name, saying which', async () => {
    const onnx = await call(`${s.url}/api/models/onnx_only/source`);
    expect(onnx.status).toBe(400);
    expect(onnx.json.error).toMatchObject({ code: 'not-python' });
    expect(onnx.json.error.message).toContain('"onnx_only" is not a Python model');
    const missing = await call(`${s.url}/api/models/nope/source`);
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain('no model named "nope"');
    expect((await call(`${s.url}/api/models/..%2Fetc/source`)).status).toBe(400);
  });

  it('never reads outside the repository: a symlinked model.py or a default_model_filename with ..', async () => {
    const leak = await call(`${s.url}/api/models/leak/source`);
    expect(leak.status).toBe(400);
    expect(leak.json.error.message).toContain('symlink outside the repository');
    expect(leak.text).not.toContain('SECRET');
    const escape = await call(`${s.url}/api/models/escape/source`);
    expect(escape.status).toBe(400);
    expect(escape.json.error.message).toContain('".."');
  });

  it('refuses a source over the size cap with 413 and the limit', async () => {
    const r = await call(`${s.url}/api/models/big/source`);
    expect(r.status).toBe(413);
    expect(r.json.error).toMatchObject({ code: 'too-large', details: { value: MAX_MODEL_SOURCE_BYTES } });
  });
});
