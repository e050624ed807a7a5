import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { Page } from 'playwright-core';
import {
  dragConnect,
  flowNode,
  handle,
  openStudio,
  settle,
  selectNode,
  startStudio,
  type BrowserSession,
  type Studio,
} from './helpers/studio.ts';

// Builds a small graph from scratch in a real Chromium against the real server: palette drag,
// keyboard add, connection rules, diagnostics, inspector edits, undo/redo, auto-layout.

let studio: Studio;
let s: BrowserSession;
let page: Page;

const problems = (p: Page) => p.locator('.problem-list li[data-code]');
const errorCount = async (p: Page) => Number((await p.locator('.count.err').innerText()).split(' ')[0]);

beforeAll(async () => {
  studio = await startStudio();
  s = await openStudio(studio.url);
  page = s.page;
});

beforeEach((ctx) => {
  onTestFailed(async () => {
    await page.screenshot({ path: `/tmp/e2e-fail-${ctx.task.name.slice(0, 30).replace(/\W+/g, '_')}.png` });
  });
});

afterAll(async () => {
  await s?.browser.close();
  await studio?.stop();
});

describe('editor', () => {
  it('opens on the ocr example with its nodes and no errors', async () => {
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(15);
    // The picker's list of saved graphs is fetched apart from the graph shown: its value follows when the list is in.
    await expect.poll(() => page.locator('select[aria-label="Open graph"]').inputValue()).toBe('ocr');
    expect(await errorCount(page)).toBe(0);
  });

  it("shows an op's params in the inspector with their help (crop reads BGR, as PaddleOCR's models were trained)", async () => {
    await selectNode(page, 'crop');
    const channels = page.locator('.inspector-body select[name="param-channels"]');
    expect(await channels.inputValue()).toBe('bgr');
    const field = page.locator('.inspector-body .field', { has: page.locator('select[name="param-channels"]') });
    expect(await field.locator('.field-hint').innerText()).toMatch(/bgr for PaddleOCR/);
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
  });

  it('starts a new graph and drags a model from the palette onto the canvas', async () => {
    await page.getByRole('button', { name: 'New', exact: true }).click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(0);
    await expect.poll(() => page.locator('.empty-canvas').isVisible()).toBe(true);
    await page
      .locator('[data-palette="model:vad"]')
      .dragTo(page.locator('.react-flow__pane'), { targetPosition: { x: 420, y: 200 } });
    await flowNode(page, 'vad').waitFor();
    expect(await flowNode(page, 'vad').locator('.react-flow__handle[data-handleid="input"]').count()).toBe(1);
  });

  it('adds an input from the palette with the keyboard', async () => {
    await page.locator('[data-palette="kind:input"]').focus();
    await page.keyboard.press('Enter');
    await flowNode(page, 'input').waitFor();
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('f');
    await settle(page);
    // Zoom out one step so the ports sit clear of the minimap in the corner.
    await page.getByRole('button', { name: 'Zoom Out' }).click();
    await settle(page);
    await expect.poll(() => problems(page).filter({ hasText: "'vad'" }).count()).toBeGreaterThan(0);
  });

  it('refuses an invalid connection and says why', async () => {
    // FP32 [-1] into vad.input FP32 [1,-1]: a rank mismatch.
    await dragConnect(page, handle(page, 'input', 'out', 'source'), handle(page, 'vad', 'input', 'target'));
    await expect.poll(() => page.locator('.toast-error').innerText()).toContain('shape mismatch');
    expect(await page.locator('.react-flow__edge').count()).toBe(0);
  });

  it('connects valid ports after fixing the input in the inspector, and the diagnostic goes away', async () => {
    await selectNode(page, 'input');
    const dims = page.locator('input[name="dims"]');
    await dims.fill('1, -1');
    await dims.press('Enter');
    await expect.poll(() => flowNode(page, 'input').locator('.node-sub').innerText()).toContain('[1,-1]');
    expect(await problems(page).filter({ hasText: 'vad' }).filter({ hasText: 'input' }).count()).toBeGreaterThan(0);
    await dragConnect(page, handle(page, 'input', 'out', 'source'), handle(page, 'vad', 'input', 'target'));
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await expect.poll(() => page.locator('.react-flow__edge-text').first().textContent()).toBe('FP32 [1,-1]');
    await expect.poll(() => problems(page).and(page.locator('[data-code="unconnected-input"]')).count()).toBe(0);
  });

  it('undoes and redoes the connection', async () => {
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await page.getByRole('button', { name: 'Redo' }).click();
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
  });

  it('adds a router and edits its mode and count in the inspector', async () => {
    await page.locator('[data-palette="kind:router"]').focus();
    await page.keyboard.press('Enter');
    const router = flowNode(page, 'router');
    await router.waitFor();
    await expect.poll(() => page.locator('.inspector-body[data-node="router"]').count()).toBe(1);
    const count = page.locator('input[name="param-count"]');
    await count.fill('3');
    await count.press('Enter');
    await page.locator('select[name="param-mode"]').selectOption('direct');
    await expect.poll(() => router.locator('.node-sub').innerText()).toBe('direct × 3');
    expect(await router.locator('.react-flow__handle-right').count()).toBe(3);
  });

  it('adds a condition, shows a column-accurate expression error inline, and clears it when fixed', async () => {
    await page.locator('[data-palette="kind:condition"]').focus();
    await page.keyboard.press('Enter');
    await flowNode(page, 'condition').waitFor();
    const expr = page.locator('input[name="expression"]');
    await expr.fill('len(boxes) == ');
    await expr.press('Enter');
    await expect.poll(() => page.locator('.field.invalid .field-error').innerText()).toMatch(/^column 15/);
    expect(await page.locator('pre.caret').innerText()).toContain('^');
    expect(await flowNode(page, 'condition').locator('.diag-badge.diag-error').count()).toBe(1);
    await expr.fill('len(boxes) == 0');
    await expr.press('Enter');
    await expect.poll(() => page.locator('.field.invalid').count()).toBe(0);
    await page.locator('select[name="param-strategy"]').selectOption('bls');
    await expect
      .poll(() => flowNode(page, 'condition').locator('.node-sub').innerText())
      .toBe('bls · exit when len(boxes) == 0');
  });

  it('auto-layout moves nodes in one undoable step', async () => {
    const before = await flowNode(page, 'router').getAttribute('style');
    await page.getByRole('button', { name: 'Auto-layout' }).click();
    await expect.poll(() => flowNode(page, 'router').getAttribute('style')).not.toBe(before);
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+z');
    await expect.poll(() => flowNode(page, 'router').getAttribute('style')).toBe(before);
  });

  it('deletes the selection with the Delete key and copies/pastes nodes', async () => {
    await page.getByRole('button', { name: 'Fit', exact: true }).click();
    await settle(page);
    await selectNode(page, 'router');
    await page.keyboard.press('Delete');
    await expect.poll(() => flowNode(page, 'router').count()).toBe(0);
    await selectNode(page, 'vad');
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    await flowNode(page, 'vad_2').waitFor();
    expect(s.errors).toEqual([]);
  });
});
