// Opens every example of a running studio in Chromium at 1440×900 and 1920×1080 and prints, per example, the
// default zoom and the smallest on-screen text on its nodes (font size × zoom), titles apart; with SHOTS=DIR it
// also writes DIR/<graph>-<width>x<height>.png.
// Usage: node apps/web/scripts/legibility.mjs http://127.0.0.1:8080 [graph ...]
import { chromium } from 'playwright-core';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
];
const { graphs: listed } = await (await fetch(`${base}/api/graphs`)).json();
const graphs =
  process.argv.length > 3 ? process.argv.slice(3) : listed.map((g) => g.name).filter((n) => !n.startsWith('perf'));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--disable-gpu', '--disable-quic', '--disable-sync'],
});
const rows = [];
for (const viewport of VIEWPORTS) {
  for (const graph of graphs) {
    const page = await browser.newPage({ viewport });
    await page.goto(`${base}/?graph=${encodeURIComponent(graph)}`);
    await page.waitForSelector('.react-flow__node');
    await page.waitForTimeout(1200);
    const m = await page.evaluate(() => {
      const vp = document.querySelector('.react-flow__viewport');
      const zoom = new DOMMatrixReadOnly(getComputedStyle(vp).transform).a;
      const canvas = document.querySelector('.react-flow').getBoundingClientRect();
      let minText = Infinity;
      let minTitle = Infinity;
      let offscreen = 0;
      for (const node of document.querySelectorAll('.react-flow__node')) {
        const r = node.getBoundingClientRect();
        if (r.right < canvas.left || r.left > canvas.right || r.bottom < canvas.top || r.top > canvas.bottom)
          offscreen++;
        for (const el of node.querySelectorAll('*')) {
          if (![...el.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())) continue;
          if (el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
          const px = parseFloat(getComputedStyle(el).fontSize) * zoom;
          if (el.closest('.node-title')) minTitle = Math.min(minTitle, px);
          else minText = Math.min(minText, px);
        }
      }
      return { zoom, minText, minTitle, nodes: document.querySelectorAll('.react-flow__node').length, offscreen };
    });
    rows.push({ viewport: `${viewport.width}x${viewport.height}`, graph, ...m });
    console.log(
      `${viewport.width}x${viewport.height} ${graph.padEnd(18)} zoom ${m.zoom.toFixed(2)}  text ≥ ${m.minText.toFixed(1)} px  titles ≥ ${m.minTitle.toFixed(1)} px  nodes ${m.nodes} (${m.offscreen} off-screen)`,
    );
    if (process.env.SHOTS)
      await page.screenshot({ path: `${process.env.SHOTS}/${graph}-${viewport.width}x${viewport.height}.png` });
    await page.close();
  }
}
await browser.close();
