import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { unzipSync } from 'fflate';
import {
  dragConnect,
  flowNode,
  handle,
  openStudio,
  selectNode,
  settle,
  startStudio,
  type BrowserSession,
  type Studio,
} from './helpers/studio.ts';

// A new user builds a pipeline from nothing with the mouse — input → extractor → output dragged from the palette and
// wired port to port — then moves, copies, lays out, saves, reloads and exports it, in a real Chromium against the
// real server. Each step checks what the user would see, so a broken step fails here.

let studio: Studio;
let s: BrowserSession;
let page: Page;

beforeAll(async () => {
  studio = await startStudio();
  s = await openStudio(studio.url, { downloads: true });
  page = s.page;
});

afterAll(async () => {
  await s?.browser.close();
  await studio?.stop();
});

const edges = () => page.locator('.react-flow__edge');
const pane = () => page.locator('.react-flow__pane');
/** A node's position in graph units, from React Flow's transform on it. */
const positionOf = (id: string) =>
  flowNode(page, id).evaluate((el) => {
    const m = new DOMMatrixReadOnly(getComputedStyle(el).transform);
    return { x: Math.round(m.e), y: Math.round(m.f) };
  });
const boxOf = async (id: string) => {
  const b = await flowNode(page, id).boundingBox();
  if (!b) throw new Error(`node ${id} is not on screen`);
  return b;
};
const overlap = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('a pipeline built from scratch with the mouse', () => {
  it('drags an input, a model and an output from the palette onto an empty canvas', async () => {
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(0);
    const name = page.locator('input[name="graph_name"]');
    await name.fill('from_scratch');
    await name.press('Enter');
    const drops: [string, string, number][] = [
      ['kind:input', 'input', 110],
      ['model:extractor', 'extractor', 390],
      ['kind:output', 'output', 670],
    ];
    const at = (await pane().boundingBox())!;
    for (const [item, id, x] of drops) {
      await page.locator(`[data-palette="${item}"]`).dragTo(pane(), { targetPosition: { x, y: 160 } });
      await flowNode(page, id).waitFor();
      await settle(page);
      // Each lands under the pointer (the palette item is held 100 px in): the view does not move as nodes arrive.
      for (const [, placed, px] of drops.slice(0, drops.findIndex((d) => d[1] === id) + 1)) {
        expect(Math.abs((await boxOf(placed)).x - (at.x + px - 100)), placed).toBeLessThan(20);
      }
    }
    expect(await page.locator('.react-flow__node').count()).toBe(3);
    // The extractor takes FP32 [64] per request; with max_batch_size 0 the ensemble input carries the batch dim.
    await selectNode(page, 'input');
    const dims = page.locator('input[name="dims"]');
    await dims.fill('-1, 64');
    await dims.press('Enter');
    await expect.poll(() => flowNode(page, 'input').locator('.node-sub').innerText()).toContain('[-1,64]');
    await selectNode(page, 'output');
    await dims.fill('-1, 256');
    await dims.press('Enter');
    await expect.poll(() => flowNode(page, 'output').locator('.node-sub').innerText()).toContain('[-1,256]');
    // Left to right where they were dropped, side by side.
    const [a, b, c] = [await boxOf('input'), await boxOf('extractor'), await boxOf('output')];
    expect(a.x).toBeLessThan(b.x);
    expect(b.x).toBeLessThan(c.x);
    expect(overlap(a, b) || overlap(b, c)).toBe(false);
  });

  it('wires input → extractor → output port to port; each edge is labelled with its tensor', async () => {
    await dragConnect(page, handle(page, 'input', 'out', 'source'), handle(page, 'extractor', 'x', 'target'));
    await expect.poll(() => edges().count()).toBe(1);
    await dragConnect(page, handle(page, 'extractor', 'feat', 'source'), handle(page, 'output', 'in', 'target'));
    await expect.poll(() => edges().count()).toBe(2);
    await expect
      .poll(() => page.locator('.react-flow__edge-text').allTextContents())
      .toEqual(['FP32 [-1,64]', 'FP32 [-1,256]']);
    await expect.poll(() => page.locator('.count.err').innerText()).toBe('0 errors');
  });

  it("refuses wiring the model's output back into its own input, and says why", async () => {
    await dragConnect(page, handle(page, 'extractor', 'feat', 'source'), handle(page, 'extractor', 'x', 'target'));
    await expect.poll(() => page.locator('.toast-error').innerText()).toMatch(/^Connection refused — .+/);
    expect(await edges().count()).toBe(2);
  });

  it('moves a node by dragging it, and undo/redo take the whole move back and forth in one step', async () => {
    const before = await positionOf('output');
    const box = await boxOf('output');
    await page.mouse.move(box.x + 60, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x + 90, box.y + 60, { steps: 5 });
    await page.mouse.move(box.x + 120, box.y + 130, { steps: 5 });
    await page.mouse.up();
    const moved = await positionOf('output');
    expect(moved.y - before.y).toBeGreaterThan(60);
    await pane().click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+z');
    await expect.poll(() => positionOf('output')).toEqual(before);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => positionOf('output')).toEqual(moved);
  });

  it('copies the model and pastes it beside the original, unwired; undo removes the copy', async () => {
    await selectNode(page, 'extractor');
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    await flowNode(page, 'extractor_2').waitFor();
    const [orig, copy] = [await positionOf('extractor'), await positionOf('extractor_2')];
    expect(copy.x).toBeGreaterThan(orig.x);
    expect(copy.y).toBeGreaterThan(orig.y);
    expect(await edges().count()).toBe(2); // the copy's ports are free
    expect(await page.locator('.react-flow__edge[data-id*="extractor_2"]').count()).toBe(0);
    await pane().click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+z');
    await expect.poll(() => flowNode(page, 'extractor_2').count()).toBe(0);
  });

  it('auto-layout puts the chain in order, left to right, with no node over another, and the view keeps it all in sight', async () => {
    // Scramble first: output above and left of the input.
    const box = await boxOf('output');
    await page.mouse.move(box.x + 60, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x - 200, box.y - 40, { steps: 5 });
    await page.mouse.move(box.x - 560, box.y - 60, { steps: 5 });
    await page.mouse.up();
    expect((await positionOf('output')).x).toBeLessThan((await positionOf('extractor')).x);
    await page.getByRole('button', { name: 'Auto-layout' }).click();
    await settle(page);
    const [a, b, c] = [await boxOf('input'), await boxOf('extractor'), await boxOf('output')];
    expect(a.x + a.width).toBeLessThan(b.x);
    expect(b.x + b.width).toBeLessThan(c.x);
    const canvas = (await page.locator('.react-flow').boundingBox())!;
    for (const n of [a, b, c]) {
      expect(n.x).toBeGreaterThanOrEqual(canvas.x);
      expect(n.x + n.width).toBeLessThanOrEqual(canvas.x + canvas.width);
    }
  });

  it('saves it, finds it again after a reload, and exports it as a repository whose ensemble runs both steps', async () => {
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('.dirty').innerText()).toBe('saved');
    const saved = JSON.parse(readFileSync(`${studio.repo}/from_scratch/studio.json`, 'utf8')) as {
      nodes: { id: string }[];
      edges: unknown[];
    };
    expect(saved.nodes.map((n) => n.id).sort()).toEqual(['extractor', 'input', 'output']);
    expect(saved.edges).toHaveLength(2);
    await page.reload();
    await flowNode(page, 'extractor').waitFor();
    // The picker's list of saved graphs is fetched apart from the graph shown: its value follows when the list is in.
    await expect.poll(() => page.locator('select[aria-label="Open graph"]').inputValue()).toBe('from_scratch');
    await expect.poll(() => edges().count()).toBe(2);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export .zip' }).click(),
    ]);
    const files = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
    const ensemble = new TextDecoder().decode(files['from_scratch/config.pbtxt']);
    expect(ensemble).toContain('platform: "ensemble"');
    expect(ensemble).toMatch(/model_name: "extractor"/);
    expect(Object.keys(files)).toContain('extractor/config.pbtxt');
    expect(s.errors).toEqual([]);
  });
});
