import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { writePng, writeWav } from './helpers/media.ts';
import { flowNode, openStudio, startStudio, type BrowserSession, type Studio } from './helpers/studio.ts';
import { tempDir } from '../support/tempDir.ts';

// Runs in the browser against the real engine: OCR on generated images, VAD on a generated WAV.

let studio: Studio;
let s: BrowserSession;
let page: Page;
const dir = tempDir('studio-run-');

const makePng = (p: Page, file: string, text: string | null) => writePng(p, join(dir, file), text);
const makeWav = (file: string) => writeWav(join(dir, file));

/** Records, in order, when each node lights up finished/skipped and when boxes and the final status appear. */
async function recordOrder(p: Page): Promise<void> {
  await p.evaluate(() => {
    const w = window as unknown as { order: string[] };
    w.order = [];
    const seen = new Set<string>();
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.react-flow__node')) {
        const node = el.querySelector('.node');
        const id = el.getAttribute('data-id');
        for (const st of ['finished', 'skipped'])
          if (node?.classList.contains(`run-${st}`) && !seen.has(`${id}:${st}`)) {
            seen.add(`${id}:${st}`);
            w.order.push(`${id}:${st}`);
          }
      }
      if (document.querySelector('[data-testid=box-count]') && !seen.has('boxes')) {
        seen.add('boxes');
        w.order.push('boxes');
      }
      const status = document.querySelector('.run-status')?.getAttribute('data-status');
      if (status && status !== 'running' && status !== 'starting' && !seen.has('end')) {
        seen.add('end');
        w.order.push(`end:${status}`);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
}
const order = (p: Page) => p.evaluate(() => (window as unknown as { order: string[] }).order);

beforeAll(async () => {
  studio = await startStudio();
  s = await openStudio(studio.url);
  page = s.page;
});

afterAll(async () => {
  await s?.browser.close();
  await studio?.stop();
});

describe('runs', () => {
  it('runs ocr on an uploaded text image: nodes light up in order, boxes and texts arrive before the run completes', async () => {
    await page.getByRole('tab', { name: 'Run' }).click();
    await page.getByLabel('Image for image').setInputFiles(await makePng(page, 'text.png', 'HELLO WORLD 42'));
    await expect.poll(() => page.locator('.run-input').innerText()).toContain('UINT8 [160,480,3]');
    await recordOrder(page);
    await page.locator('.run-actions button.primary').click();
    await expect
      .poll(() => page.locator('.run-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('completed');
    const events = await order(page);
    const at = (e: string) => events.indexOf(e);
    expect(at('det:finished')).toBeGreaterThanOrEqual(0);
    expect(at('det:finished')).toBeLessThan(at('db:finished'));
    expect(at('db:finished')).toBeLessThan(at('rec:finished'));
    expect(at('rec:finished')).toBeLessThan(at('ctc:finished'));
    expect(at('boxes')).toBeLessThan(at('end:completed'));
    expect(await page.locator('[data-testid=box-count]').innerText()).toMatch(/^[1-9]\d* box/);
    expect((await page.locator('[data-testid=texts] tbody').innerText()).toUpperCase()).toMatch(/HELLO|WORLD|42/);
    expect(await flowNode(page, 'det').locator('.node-status').innerText()).toMatch(/✓ [\d.]+ ms/);
    expect(await page.locator('.timeline .tl-row').count()).toBeGreaterThan(5);
    // Each model's own run is drawn inside its compute, from the stamps its instance and worker took.
    const detRow = page.locator('.timeline .tl-row[data-node="det"]');
    expect(await detRow.locator('[data-testid=model-run]').count()).toBe(1);
    expect(await detRow.getAttribute('title')).toMatch(/to the model [\d.]+ ms, its own run [\d.]+ ms, back [\d.]+ ms/);
    // det's probability map is far over the full-data limit: the heatmap is drawn from its thumbnail.
    const heat = page.locator('.ne[data-node="det"] [data-testid=heatmap]');
    expect(await heat.locator('canvas').count()).toBe(1);
    expect(await heat.innerText()).toContain('box-averaged');
    expect(Number(await heat.locator('canvas').getAttribute('width'))).toBeGreaterThan(1);
    // cls → angle (topk): one row per box with the orientation labelled.
    const topk = page.locator('[data-testid=topk][data-node="angle"]');
    const rows = await topk.locator('tbody tr').count();
    expect(rows).toBeGreaterThan(0);
    expect(await topk.locator('tbody').innerText()).toMatch(/0°|180°/);
    expect(await topk.locator('thead').innerText()).toMatch(/row\s+rank\s+index\s+label\s+value/);
  });

  it('runs ocr as exported: the generated model.py files in python3 read the same text', async () => {
    const texts = (await page.locator('[data-testid=texts] tbody').innerText()).toUpperCase();
    await page.getByLabel('as exported').check();
    await page.locator('.run-actions button.primary').click();
    await expect
      .poll(() => page.locator('.run-status').getAttribute('data-status'), { timeout: 90_000 })
      .toBe('completed');
    expect((await page.locator('[data-testid=texts] tbody').innerText()).toUpperCase()).toBe(texts);
    await page.getByLabel('as exported').uncheck();
  });

  it('runs ocr on a blank image: the pipeline exits early and recognition says why it was skipped', async () => {
    await page.getByLabel('Image for image').setInputFiles(await makePng(page, 'blank.png', null));
    await expect.poll(() => page.locator('.run-input').innerText()).toContain('blank.png');
    await page.locator('.run-actions button.primary').click();
    await expect
      .poll(() => page.locator('.run-status').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('exited');
    expect(await page.locator('.run-status').innerText()).toContain('len(boxes) == 0');
    await expect.poll(() => flowNode(page, 'rec').locator('.node-status').innerText()).toContain('skipped');
    expect(await flowNode(page, 'rec').locator('.node-status').innerText()).toContain('has_text');
    expect(await page.locator('.ne[data-node="rec"]').getAttribute('data-status')).toBe('skipped');
  });

  it('streams a WAV into vad-stream: the chart grows chunk by chunk with the instance binding, and cancel stops it', async () => {
    await page.locator('select[aria-label="Open graph"]').selectOption('vad-stream');
    await flowNode(page, 'vad').waitFor();
    await page.getByRole('tab', { name: 'Run' }).click();
    await page.getByLabel('Audio for audio').setInputFiles(makeWav('speech.wav'));
    await expect.poll(() => page.locator('.run-input').innerText()).toContain('4.00 s at 16 kHz');
    await page.getByRole('button', { name: '▶ Stream' }).click();
    const points = () => page.locator('svg.chart').getAttribute('data-points').then(Number);
    await expect.poll(points, { timeout: 30_000 }).toBeGreaterThan(2);
    const early = await points();
    await expect.poll(points, { timeout: 30_000 }).toBeGreaterThan(early + 5);
    expect(await page.getByTestId('instance').innerText()).toMatch(/\S+/);
    await page.getByRole('button', { name: '■ Cancel' }).click();
    await expect.poll(() => page.locator('.stream').innerText()).toContain('ended (cancelled');
    expect(await page.getByTestId('state').innerText()).toContain('state → stateN');
    const total = Math.ceil((4 * 16_000) / 512);
    const acked = Number(await page.getByTestId('acked').innerText());
    expect(acked).toBeLessThan(total);
    expect(s.errors).toEqual([]);
  });
});
