// Refreshes the screenshots in docs/screenshots from a running studio over the bundled examples
// (node apps/web/scripts/docShots.mjs URL): editor.png, run.png, python-traceback.png and python-source.png at
// 1440×900, then every example at 1440×900 and 1920×1080 into docs/screenshots/examples (legibility.mjs).
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--disable-gpu', '--disable-quic', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
await page.goto(`${base}/?graph=ocr`);
await page.waitForSelector('.react-flow__node[data-id="has_text"]');
await page.locator('.react-flow__node[data-id="has_text"]').click();
await page.locator('input[name="expression"]').fill('len(boxes) == ');
await page.locator('input[name="expression"]').press('Enter');
await page.waitForTimeout(500);
await page.screenshot({ path: 'docs/screenshots/editor.png' });
await page.getByRole('button', { name: 'Undo' }).click();
await page.locator('.react-flow__pane').click({ position: { x: 10, y: 10 } });
await page.getByRole('tab', { name: 'Run' }).click();
await page.getByRole('button', { name: 'Sample image' }).click();
await page.waitForSelector('text=sample text image');
await page.locator('.run-actions button.primary').click();
await page.waitForSelector('.run-status[data-status=completed]', { timeout: 60_000 });
await page.waitForTimeout(300);
await page.screenshot({ path: 'docs/screenshots/run.png' });
// A Python model that raised: its traceback in the run panel, then its model.py opened at the failing line.
const blank = await page.evaluate(async () => {
  const c = new OffscreenCanvas(480, 160);
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, 480, 160);
  return [...new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer())];
});
await page.goto(`${base}/?graph=python-text-exit`);
await page.waitForSelector('.react-flow__node[data-id="text_boxes"]');
await page.getByRole('tab', { name: 'Run' }).click();
await page
  .getByLabel('Image for image')
  .setInputFiles({ name: 'blank.png', mimeType: 'image/png', buffer: Buffer.from(blank) });
await page.waitForSelector('text=blank.png');
await page.locator('.run-actions button.primary').click();
await page.waitForSelector('.ne[data-node="text_boxes"][data-status=failed] [data-testid=traceback]', {
  timeout: 60_000,
});
await page.locator('[data-testid=traceback]').scrollIntoViewIfNeeded();
await page.waitForTimeout(300);
await page.screenshot({ path: 'docs/screenshots/python-traceback.png' });
await page.locator('[data-testid=traceback] button').click();
await page.waitForSelector('.source-mark');
await page.waitForTimeout(300);
await page.screenshot({ path: 'docs/screenshots/python-source.png' });
await browser.close();
execFileSync(process.execPath, [new URL('./legibility.mjs', import.meta.url).pathname, base], {
  stdio: 'inherit',
  env: { ...process.env, SHOTS: 'docs/screenshots/examples' },
});
