import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { flowNode, openStudio, selectNode, startStudio, type BrowserSession, type Studio } from './helpers/studio.ts';

// Save / reload / export against the real server's repository (a temporary copy of the examples).

let studio: Studio;
let s: BrowserSession;

beforeAll(async () => {
  studio = await startStudio();
  s = await openStudio(studio.url, { downloads: true });
});

afterAll(async () => {
  await s?.browser.close();
  await studio?.stop();
});

describe('graph files', () => {
  it('saves an edited graph to the repository and finds it again after a reload', async () => {
    const { page } = s;
    await page.locator('[data-palette="kind:router"]').focus();
    await page.keyboard.press('Enter');
    await flowNode(page, 'router').waitFor();
    await expect.poll(() => page.locator('.dirty').innerText()).toContain('unsaved');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.locator('.dirty').innerText()).toBe('saved');
    const onDisk = JSON.parse(readFileSync(`${studio.repo}/ocr/studio.json`, 'utf8')) as { nodes: { id: string }[] };
    expect(onDisk.nodes.map((n) => n.id)).toContain('router');
    await page.reload();
    await page.waitForSelector('.react-flow__node');
    await flowNode(page, 'router').waitFor();
    expect(await page.locator('.react-flow__node').count()).toBe(16);
  });

  it('saves a new graph under its own name and reopens it from the URL', async () => {
    const { page } = s;
    await page.getByRole('button', { name: 'New', exact: true }).click();
    const name = page.locator('input[name="graph_name"]');
    await name.fill('my_pipeline');
    await name.press('Enter');
    await page
      .locator('[data-palette="model:det"]')
      .dragTo(page.locator('.react-flow__pane'), { targetPosition: { x: 300, y: 200 } });
    await flowNode(page, 'det').waitFor();
    await page.keyboard.press('Control+s');
    await expect.poll(() => page.locator('.dirty').innerText()).toBe('saved');
    expect(page.url()).toContain('graph=my_pipeline');
    await page.reload();
    await flowNode(page, 'det').waitFor();
    // The picker's list of saved graphs is fetched apart from the graph shown: its value follows when the list is in.
    await expect.poll(() => page.locator('select[aria-label="Open graph"]').inputValue()).toBe('my_pipeline');
    await page.locator('select[aria-label="Open graph"]').selectOption('ocr');
    await flowNode(page, 'has_text').waitFor();
  });

  it('exports the repository as a .zip with every config.pbtxt', async () => {
    const { page } = s;
    // The router saved above feeds nothing and has no input: export refuses a graph with errors.
    await page.getByRole('button', { name: 'Export .zip' }).click();
    await expect.poll(() => page.locator('.toast-error').innerText()).toMatch(/does not compile/);
    await selectNode(page, 'router');
    await page.keyboard.press('Delete');
    await expect.poll(() => flowNode(page, 'router').count()).toBe(0);
    await expect.poll(() => page.locator('.count.err').innerText()).toBe('0 errors');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export .zip' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('ocr-model_repository.zip');
    const files = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
    for (const model of [
      'ocr',
      'det',
      'rec',
      'cls',
      'ocr_has_text',
      'ocr_fanout',
      'ocr_preprocess',
      'ocr_db',
      'ocr_crop',
      'ocr_ctc',
      'ocr_angle',
    ]) {
      expect(Object.keys(files)).toContain(`${model}/config.pbtxt`);
    }
    const ensemble = new TextDecoder().decode(files['ocr/config.pbtxt']);
    expect(ensemble).toContain('platform: "ensemble"');
    expect(Object.keys(files)).toContain('ocr_has_text/1/model.py');
    expect(s.errors).toEqual([]);
  });

  it("previews the selected node's generated files", async () => {
    const { page } = s;
    await selectNode(page, 'has_text');
    await page.getByRole('tab', { name: 'Preview' }).click();
    await expect.poll(() => page.locator('pre.code').getAttribute('data-file')).toBe('ocr_has_text/config.pbtxt');
    expect(await page.locator('pre.code').innerText()).toContain('decoupled');
    await page.getByRole('button', { name: 'ocr_has_text/1/model.py' }).click();
    await expect.poll(() => page.locator('pre.code').innerText()).toContain('import');
  });
});
