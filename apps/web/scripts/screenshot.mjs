// Dev helper: node apps/web/scripts/screenshot.mjs URL OUT.png [theme] — screenshots the studio at 1440×900 in Chromium.
import { chromium } from 'playwright-core';

const [url, out = '/tmp/studio.png', theme] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--disable-gpu', '--disable-quic', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
page.on('console', (m) => {
  if (m.type() === 'error') console.error('console:', m.text());
});
page.on('pageerror', (e) => console.error('pageerror:', e.message));
if (theme) await page.addInitScript((t) => localStorage.setItem('studio.theme', t), theme);
await page.goto(url);
await page.waitForSelector('.react-flow__node', { timeout: 20_000 }).catch(() => console.error('no nodes rendered'));
await page.waitForTimeout(800);
await page.screenshot({ path: out });
await browser.close();
console.log('wrote', out);
