// Times opening a large repository in Chromium: 200 Python models (config.pbtxt + model.py) and 20 ensembles of 10
// steps each (Triton configs, imported and laid out by the server). Generates the repository in a temporary
// directory, serves it with the studio CLI (apps/web/dist must be built), prints the times, removes everything.
// Usage: node apps/web/scripts/openLarge.mjs (SHOT=file.png also screenshots the imported ensemble it opens)
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const MODELS = 200;
const ENSEMBLES = 20;
const dir = mkdtempSync(join(tmpdir(), 'studio-large-'));
const write = (p, text) => {
  mkdirSync(join(dir, p, '..'), { recursive: true });
  writeFileSync(join(dir, p), text);
};
const tensor = (name) => `{ name: "${name}" data_type: TYPE_FP32 dims: [ 16 ] }`;
for (let i = 0; i < MODELS; i++) {
  write(
    `m${i}/config.pbtxt`,
    `name: "m${i}"\nbackend: "python"\nmax_batch_size: 8\ninput [ ${tensor('x')} ]\noutput [ ${tensor('y')} ]\n`,
  );
  write(
    `m${i}/1/model.py`,
    'import triton_python_backend_utils as pb_utils\n\nclass TritonPythonModel:\n    def execute(self, requests):\n        return [pb_utils.InferenceResponse([pb_utils.Tensor("y", pb_utils.get_input_tensor_by_name(r, "x").as_numpy())]) for r in requests]\n',
  );
}
const per = MODELS / ENSEMBLES;
for (let e = 0; e < ENSEMBLES; e++) {
  const steps = [];
  for (let k = 0; k < per; k++) {
    const m = e * per + k;
    steps.push(
      `{ model_name: "m${m}" model_version: -1 input_map { key: "x" value: "${k === 0 ? 'x' : `t${k - 1}`}" } output_map { key: "y" value: "${k === per - 1 ? 'y' : `t${k}`}" } }`,
    );
  }
  write(`ens${e}/1/.keep`, '');
  write(
    `ens${e}/config.pbtxt`,
    `name: "ens${e}"\nplatform: "ensemble"\nmax_batch_size: 8\ninput [ ${tensor('x')} ]\noutput [ ${tensor('y')} ]\nensemble_scheduling {\n  step [\n    ${steps.join(',\n    ')}\n  ]\n}\n`,
  );
}

const child = spawn(
  process.execPath,
  [
    'apps/server/bin/ensemble-studio.mjs',
    'serve',
    '--port',
    '0',
    '--grpc-port',
    'off',
    '--host',
    '127.0.0.1',
    '--repo',
    dir,
  ],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
let out = '';
let browser;
try {
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 120_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
  });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--disable-gpu', '--disable-quic', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const t0 = Date.now();
  await page.goto(`${url}/?graph=ens7`);
  await page.waitForSelector('.react-flow__node[data-id="m79"]');
  await page.waitForSelector('[data-palette="model:m199"]');
  const open = Date.now() - t0;
  // Interactive: the main thread answers a frame request right after.
  const frame = await page.evaluate(
    () =>
      new Promise((r) => {
        const a = performance.now();
        requestAnimationFrame(() => r(performance.now() - a));
      }),
  );
  const search = await page.evaluate(async () => {
    const input = document.querySelector('.palette .search');
    const set = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
    const a = performance.now();
    set.call(input, 'm137');
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    return { ms: performance.now() - a, items: document.querySelectorAll('.palette-item.pi-model').length };
  });
  if (process.env.SHOT) await page.screenshot({ path: process.env.SHOT });
  const t1 = Date.now();
  await page.locator('select[aria-label="Open graph"]').selectOption('ens19');
  await page.waitForSelector('.react-flow__node[data-id="m199"]');
  console.log(
    `${MODELS} models, ${ENSEMBLES} ensembles: first graph and palette shown in ${open} ms (next frame ${frame.toFixed(0)} ms); palette search ${search.ms.toFixed(0)} ms (${search.items} match); switching ensembles ${Date.now() - t1} ms`,
  );
} finally {
  // The generated repository goes whatever happened (a server that did not start included).
  await browser?.close();
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
