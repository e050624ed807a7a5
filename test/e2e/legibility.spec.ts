import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { http } from '../support/server.ts';
import { readLegibility } from './helpers/legibility.ts';
import { settle, launchChromium, startStudio, type Studio } from './helpers/studio.ts';

// Every bundled example, opened as a new user opens it (palette and inspector open), must be readable without
// zooming: node text ≥ 9 px on screen and titles ≥ 11 px, the whole graph in view.

const MIN_TEXT_PX = 9;
const MIN_TITLE_PX = 11;

let studio: Studio;
let browser: Browser;
let graphs: { name: string; nodes: number }[];

beforeAll(async () => {
  studio = await startStudio();
  browser = await launchChromium();
  graphs = (await http(`${studio.url}/api/graphs`)).json.graphs;
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
});

/** Opens `graph` on `page` as a link to it would, and waits for its first view. */
async function show(page: Page, graph: string): Promise<void> {
  await page.goto(`${studio.url}/?graph=${encodeURIComponent(graph)}`);
  await page.waitForSelector('.react-flow__node');
  await settle(page);
}

async function open(viewport: { width: number; height: number }, graph: string): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await show(page, graph);
  return page;
}

/** A chain of `n` routers in one long row, as a hand-made or generated graph might be saved. */
async function saveChain(name: string, n: number): Promise<void> {
  const nodes: unknown[] = [
    { id: 'in', kind: 'input', position: { x: 0, y: 0 }, params: { name: 'x', datatype: 'FP32', dims: [-1] } },
  ];
  const edges: unknown[] = [];
  for (let i = 0; i < n; i++) {
    nodes.push({
      id: `r${i}`,
      kind: 'router',
      position: { x: 300 * (i + 1), y: 0 },
      params: { mode: 'direct', count: 1 },
    });
    edges.push({
      id: `e${i}`,
      source: i === 0 ? 'in' : `r${i - 1}`,
      sourcePort: i === 0 ? 'out' : 'out_0',
      target: `r${i}`,
      targetPort: 'in',
    });
  }
  nodes.push({
    id: 'out',
    kind: 'output',
    position: { x: 300 * (n + 1), y: 0 },
    params: { name: 'y', datatype: 'FP32', dims: [-1] },
  });
  edges.push({ id: 'e_out', source: `r${n - 1}`, sourcePort: 'out_0', target: 'out', targetPort: 'in' });
  const r = await http(`${studio.url}/api/graphs/${name}`, {
    method: 'PUT',
    body: JSON.stringify({ version: 1, name, maxBatchSize: 0, nodes, edges }),
  });
  expect(r.status, r.text).toBe(200);
}

describe('legible by default', () => {
  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 1920, height: 1080 },
  ]) {
    it(`opens every bundled example whole, with node text ≥ ${MIN_TEXT_PX} px and titles ≥ ${MIN_TITLE_PX} px, at ${viewport.width}×${viewport.height}`, async () => {
      expect(graphs.length).toBeGreaterThanOrEqual(4);
      // One page loads every graph in turn: a new page (browser context) per graph took a third of this test's time,
      // and loaded the app without the HTTP cache each time. Each load is a new document; what the app keeps in
      // localStorage is cleared after each, so every graph opens as it does for a new user.
      const page = await browser.newPage({ viewport });
      try {
        for (const g of graphs) {
          await show(page, g.name);
          const m = await readLegibility(page);
          await page.evaluate(() => localStorage.clear());
          expect(m.nodes, g.name).toBe(g.nodes);
          expect(m.minText, `${g.name}: smallest node text at zoom ${m.zoom.toFixed(2)}`).toBeGreaterThanOrEqual(
            MIN_TEXT_PX,
          );
          expect(m.minTitle, `${g.name}: smallest title at zoom ${m.zoom.toFixed(2)}`).toBeGreaterThanOrEqual(
            MIN_TITLE_PX,
          );
          expect(m.outside, `${g.name}: nodes outside the canvas`).toEqual([]);
        }
      } finally {
        await page.close();
      }
    });
  }

  it('opens a graph too long to fit at a legible zoom from its start, and auto-layout wraps it to fit', async () => {
    await saveChain('long-chain', 14);
    const page = await open({ width: 1440, height: 900 }, 'long-chain');
    const before = await readLegibility(page);
    expect(before.minTitle).toBeGreaterThanOrEqual(MIN_TITLE_PX);
    expect(before.minText).toBeGreaterThanOrEqual(MIN_TEXT_PX);
    expect(before.outside).not.toContain('in'); // reading starts at the input…
    expect(before.outside).toContain('out'); // …and the rest is beyond the edge (the minimap shows it)
    await page.getByRole('button', { name: 'Auto-layout' }).click();
    await settle(page);
    const after = await readLegibility(page);
    expect(after.outside).toEqual([]);
    expect(after.minText).toBeGreaterThanOrEqual(MIN_TEXT_PX);
    await page.close();
  });

  it('hides port names and edge labels when zoomed out, draws nodes as boxes of unchanged size further out, and shows it all again at the default view', async () => {
    const page = await open({ width: 1440, height: 900 }, 'ocr');
    const shown = (selector: string) =>
      page.locator(selector).evaluateAll(
        // checkVisibility is false under a content-visibility: hidden node (drawn as a box) and for visibility: hidden
        (els) => els.filter((e) => e.checkVisibility({ visibilityProperty: true })).length,
      );
    // Node sizes in graph units (on-screen size / zoom): a level of detail must not change them.
    const sizes = () =>
      page.evaluate(() => {
        const zoom = new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform)
          .a;
        return [...document.querySelectorAll('.react-flow__node')].map((n) => {
          const r = n.getBoundingClientRect();
          return [Math.round(r.width / zoom), Math.round(r.height / zoom)];
        });
      });
    const zoomOutBelow = async (zoom: number) => {
      for (let i = 0; i < 12 && (await readLegibility(page)).zoom >= zoom; i++) {
        await page.getByRole('button', { name: 'Zoom Out' }).click();
        await settle(page);
      }
      expect((await readLegibility(page)).zoom).toBeLessThan(zoom);
    };
    const atDefault = await sizes();
    expect(await shown('.react-flow__edge-textwrapper, .port-name')).toBeGreaterThan(0);
    await zoomOutBelow(0.55); // titles stay, port names and edge labels go
    expect(await shown('.react-flow__edge-textwrapper, .port-name')).toBe(0);
    expect(await shown('.node-title')).toBe(15);
    await zoomOutBelow(0.35); // plain boxes
    expect(await shown('.node-title, .react-flow__handle')).toBe(0);
    expect(await page.locator('.react-flow__node').count()).toBe(15);
    expect(await sizes()).toEqual(atDefault);
    await page.getByRole('button', { name: 'Fit', exact: true }).click();
    await settle(page);
    expect(await shown('.react-flow__edge-textwrapper, .port-name')).toBeGreaterThan(0);
    expect(await sizes()).toEqual(atDefault);
    await page.close();
  });

  it("shows model.py in the narrow inspector with every line wrapped into view, none cut off at the panel's edge", async () => {
    const page = await open({ width: 1440, height: 900 }, 'python-text-exit');
    await page.locator('.react-flow__node[data-id="text_boxes"]').click();
    await page.getByRole('button', { name: 'View model.py' }).click();
    const view = page.locator('.source-view');
    await expect.poll(() => view.locator('.source-line').count()).toBeGreaterThan(20);
    const fit = await view.evaluate((el) => ({
      overflow: el.scrollWidth - el.clientWidth,
      longest: Math.max(...[...el.querySelectorAll('.source-line')].map((l) => l.textContent!.length)),
      wrapped: [...el.querySelectorAll('.source-line')].filter((l) => l.getClientRects()[0]!.height > 20).length,
    }));
    expect(fit.longest).toBeGreaterThan(60); // the file has lines longer than the panel is wide…
    expect(fit.wrapped).toBeGreaterThan(0); // …which wrap onto more rows…
    expect(fit.overflow).toBeLessThanOrEqual(0); // …so nothing scrolls sideways
    await page.close();
  });
});
