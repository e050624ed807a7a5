// Writes docs/screenshots/editor.png and run.png from a running studio (node apps/web/scripts/docShots.mjs URL).
import { chromium } from 'playwright-core';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--disable-gpu', '--disable-quic', '--disable-sync'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
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
await browser.close();
