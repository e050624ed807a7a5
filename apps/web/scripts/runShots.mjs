// Screenshots of the run panel (node apps/web/scripts/runShots.mjs URL OUTDIR): two vad-stream sessions
// side by side (sessions.png), and an ocr run scrolled to its heatmap and top-k table (ocr.png).
import { chromium } from 'playwright-core';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const out = process.argv[3] ?? '.';
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--disable-gpu', '--disable-quic', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
await page.goto(`${base}/?graph=vad-stream`);
await page.waitForSelector('.react-flow__node[data-id="vad"]');
await page.getByRole('tab', { name: 'Run' }).click();
await page.getByRole('button', { name: 'Sample audio' }).click();
await page.getByRole('button', { name: '▶ Stream' }).click();
await page.waitForTimeout(1200);
await page.getByRole('button', { name: '▶ Stream' }).click();
await page.waitForFunction(
  () =>
    [...document.querySelectorAll('.session-card svg.chart')].every((c) => Number(c.getAttribute('data-points')) > 40),
  null,
  { timeout: 30_000 },
);
await page.locator('.session-card').first().getByRole('button', { name: 'Cancel' }).click();
await page.waitForTimeout(600);
await page.screenshot({ path: `${out}/sessions.png` });
await page.goto(`${base}/?graph=ocr`);
await page.waitForSelector('.react-flow__node[data-id="has_text"]');
await page.getByRole('tab', { name: 'Run' }).click();
await page.getByRole('button', { name: 'Sample image' }).click();
await page.waitForSelector('text=sample text image');
await page.locator('.run-actions button.primary').click();
await page.waitForSelector('.run-status[data-status=completed]', { timeout: 60_000 });
await page.locator('[data-testid=topk]').scrollIntoViewIfNeeded();
await page.waitForTimeout(300);
await page.screenshot({ path: `${out}/ocr.png` });
await page.locator('.ne[data-node="det"] [data-testid=heatmap]').scrollIntoViewIfNeeded();
await page.waitForTimeout(300);
await page.screenshot({ path: `${out}/ocr-heatmap.png` });
await browser.close();
