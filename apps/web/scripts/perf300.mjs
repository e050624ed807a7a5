// Measures the frame time of a node drag on a generated 300-node graph in Chromium.
// Usage: node apps/web/scripts/perf300.mjs http://127.0.0.1:8080  (saves graph `perf300` into that server's repository)
import { chromium } from 'playwright-core';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const N = 300;
const nodes = [
  { id: 'in', kind: 'input', position: { x: 0, y: 0 }, params: { name: 'x', datatype: 'FP32', dims: [-1] } },
];
const edges = [];
for (let i = 0; i < N - 2; i++) {
  nodes.push({
    id: `r${i}`,
    kind: 'router',
    position: { x: 260 * ((i + 1) % 20), y: 160 * Math.floor((i + 1) / 20) },
    params: { mode: 'direct', count: 1 },
  });
  const prev = i === 0 ? ['in', 'out'] : [`r${i - 1}`, 'out_0'];
  edges.push({ id: `e${i}`, source: prev[0], sourcePort: prev[1], target: `r${i}`, targetPort: 'in' });
}
nodes.push({
  id: 'out',
  kind: 'output',
  position: { x: 260 * 19, y: 160 * 15 },
  params: { name: 'y', datatype: 'FP32', dims: [-1] },
});
edges.push({ id: 'e_out', source: `r${N - 3}`, sourcePort: 'out_0', target: 'out', targetPort: 'in' });
const graph = { version: 1, name: 'perf300', maxBatchSize: 0, nodes, edges };
const res = await fetch(`${base}/api/graphs/perf300`, {
  method: 'PUT',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(graph),
});
if (!res.ok) throw new Error(`save failed: ${res.status} ${await res.text()}`);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--disable-gpu', '--disable-quic', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(`${base}/?graph=perf300`);
await page.waitForSelector('.react-flow__node[data-id="r0"]');
await page.waitForTimeout(1500);
// The graph opens at a legible zoom showing its top-left corner; VIEW=all (the default) zooms out until all 300 nodes
// are on screen (the heaviest view to drag in), VIEW=open keeps the opening view and drags a node visible there.
const view = process.env.VIEW ?? 'all';
if (view === 'all') await page.getByRole('button', { name: 'Fit View' }).click();
for (let i = 0; i < Number(process.env.ZOOM_IN ?? 0); i++) await page.getByRole('button', { name: 'Zoom In' }).click();
await page.waitForTimeout(800);
if (process.env.NO_MINIMAP) await page.addStyleTag({ content: '.react-flow__minimap{display:none}' });
const target = view === 'all' ? 'r150' : 'r40';
const box = await page.locator(`.react-flow__node[data-id="${target}"]`).boundingBox();
if (!box || box.x < 0 || box.y < 0 || box.x + box.width > 1280 || box.y + box.height > 800)
  throw new Error(`node ${target} is not on screen: ${JSON.stringify(box)}`);
await page.evaluate(() => {
  const w = window;
  w.frames = [];
  let last = performance.now();
  const tick = (t) => {
    w.frames.push(t - last);
    last = t;
    if (w.measuring) requestAnimationFrame(tick);
  };
  w.measuring = true;
  requestAnimationFrame(tick);
});
// Main-thread busy time (script, style, layout, paint) per frame: on a loaded machine wall-clock frame times mostly
// measure waiting for a CPU, this measures the work a frame costs.
const metrics = await page.context().newCDPSession(page);
await metrics.send('Performance.enable');
const read = async () =>
  Object.fromEntries((await metrics.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
const busyBefore = await read();
const cdp = process.env.PROFILE ? await page.context().newCDPSession(page) : null;
if (cdp) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.start');
}
await page.mouse.move(box.x + box.width / 2, box.y + 10);
await page.mouse.down();
for (let i = 1; i <= 60; i++) await page.mouse.move(box.x + box.width / 2 + i * 4, box.y + 10 + i * 2);
await page.mouse.up();
if (cdp) {
  const { profile } = await cdp.send('Profiler.stop');
  const self = new Map();
  const dt = profile.timeDeltas;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const n = byId.get(id);
    const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
    self.set(k, (self.get(k) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  console.log(
    [...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([k, v]) => `${v.toFixed(0)}ms ${k}`)
      .join('\n'),
  );
}
const busyAfter = await read();
const spent = (k) => (busyAfter[k] - busyBefore[k]) * 1000;
const busyMs = spent('TaskDuration');
const frames = await page.evaluate(() => {
  window.measuring = false;
  return window.frames.slice(2);
});
frames.sort((a, b) => a - b);
const mean = frames.reduce((a, b) => a + b, 0) / frames.length;
const p50 = frames[Math.floor(frames.length * 0.5)];
const p95 = frames[Math.floor(frames.length * 0.95)];
const zoom = await page.evaluate(
  () => new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a,
);
console.log(
  `300 nodes, ${await page.locator('.react-flow__node').count()} rendered, view ${view} (zoom ${zoom.toFixed(2)}): drag frames n=${frames.length} mean ${mean.toFixed(1)} ms, p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${frames.at(-1).toFixed(1)} ms; main thread busy ${(busyMs / frames.length).toFixed(1)} ms per frame (script ${(spent('ScriptDuration') / frames.length).toFixed(1)}, style ${(spent('RecalcStyleDuration') / frames.length).toFixed(1)}, layout ${(spent('LayoutDuration') / frames.length).toFixed(1)})`,
);
await browser.close();
