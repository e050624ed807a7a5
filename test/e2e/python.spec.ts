import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { http } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { writePng } from './helpers/media.ts';
import { flowNode, selectNode, settle, launchChromium, startStudio, type Studio } from './helpers/studio.ts';

// Python models in the editor, against the real server and real python3 processes: the palette, the node, the
// inspector's read-only model.py, and a run whose model logs a line or raises with a traceback that opens its line.

let studio: Studio;
let browser: Browser;
let page: Page;
const errors: string[] = [];
const dir = tempDir('studio-python-');

beforeAll(async () => {
  studio = await startStudio();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${studio.url}/?graph=python-text-exit`);
  await page.waitForSelector('.react-flow__node');
  await settle(page);
});

beforeEach((ctx) => {
  onTestFailed(async () => {
    await page.screenshot({ path: `/tmp/e2e-fail-${ctx.task.name.slice(0, 30).replace(/\W+/g, '_')}.png` });
  });
});

afterAll(async () => {
  await browser?.close();
  await studio?.stop();
});

const runWith = async (file: string, text: string | null) => {
  await page.getByRole('tab', { name: 'Run' }).click();
  await page.getByLabel('Image for image').setInputFiles(await writePng(page, join(dir, file), text));
  await expect.poll(() => page.locator('.run-input').innerText()).toContain(file);
  await page.locator('.run-actions button.primary').click();
};

describe('Python models in the editor', () => {
  it('lists Python models in the palette with their backend and signature', async () => {
    const item = page.locator('[data-palette="model:python_text_boxes"]');
    expect(await item.locator('.pi-backend').innerText()).toBe('python');
    expect(await item.locator('.sig').innerText()).toMatch(/→ prob FP32 \[-1,-1\][\s\S]*← boxes FP32 \[-1,4\]/);
  });

  it('shows the backend and model.py on the node, and the path and highlighted source in the inspector', async () => {
    expect(await flowNode(page, 'text_boxes').locator('.fact').first().innerText()).toBe('python · model.py');
    await selectNode(page, 'text_boxes');
    expect(await page.getByTestId('model-backend').innerText()).toBe('python');
    expect(await page.getByTestId('model-file').innerText()).toBe('python_text_boxes/1/model.py');
    await page.getByRole('button', { name: 'View model.py' }).click();
    const code = page.locator('.source-view code');
    await expect.poll(() => code.innerText()).toContain('class TritonPythonModel');
    expect(await code.locator('.hljs-keyword').count()).toBeGreaterThan(3);
    expect(await page.locator('.source-view').getAttribute('aria-label')).toBe(
      'python_text_boxes/1/model.py (read-only)',
    );
    expect(await code.evaluate((el) => (el as HTMLElement).isContentEditable)).toBe(false);
  });

  it("shows a model's log line (pb_utils.Logger) in the run panel", async () => {
    await runWith('text.png', 'Hello there');
    await page.waitForSelector('.run-status[data-status=completed]', { timeout: 60_000 });
    await expect.poll(() => page.getByTestId('run-log').innerText()).toMatch(/\d+ line\(s\) of text/);
    expect(await page.locator('[data-testid=run-log] li[data-model="python_text_boxes"]').count()).toBeGreaterThan(0);
  });

  it('shows the traceback of a model that raises, on the node and in the run panel, and opens model.py at its line', async () => {
    await runWith('blank.png', null);
    await expect
      .poll(() => page.locator('.ne[data-node="text_boxes"]').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('failed');
    const tb = page.locator('.ne[data-node="text_boxes"] [data-testid=traceback]');
    expect(await tb.locator('pre').innerText()).toMatch(/model\.py", line \d+[\s\S]*no text found/);
    await expect
      .poll(() => flowNode(page, 'text_boxes').locator('.node-status').innerText())
      .toMatch(/^failed at model\.py:\d+: /);
    const link = tb.getByRole('button', { name: /^open model\.py:\d+$/ });
    const line = Number((await link.innerText()).split(':')[1]);
    await link.click();
    // The inspector opens on the node with the source marked at that line: the line that raises.
    await expect.poll(() => page.locator('.source-view').getAttribute('data-line')).toBe(String(line));
    const source = (await http(`${studio.url}/api/models/python_text_boxes/source`)).json.text as string;
    expect(source.split('\n')[line - 1]).toContain('raise');
    expect(await page.locator('.source-mark').isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });
});
