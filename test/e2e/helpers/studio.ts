import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from '../../support/mutate.ts';
import { copyExamples, EXAMPLES_DIR, removeDir, spawnStudio } from '../../support/server.ts';
import { tempDir } from '../../support/tempDir.ts';

/** Builds apps/web/dist once when it is missing (the server serves it). */
function ensureWebBuild(): void {
  if (existsSync(join(ROOT, 'apps/web/dist/index.html'))) return;
  const r = spawnSync('pnpm', ['--filter', '@ensemble-studio/web', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building apps/web failed');
}

export interface Studio {
  url: string;
  repo: string;
  stop(): Promise<void>;
}

/**
 * Starts the real studio server (a child process) on a free port over a temporary copy of the
 * example repository (ONNX models included, so saves never touch the real one).
 */
export async function startStudio(): Promise<Studio> {
  ensureWebBuild();
  if (!existsSync(join(EXAMPLES_DIR, 'det/1/model.onnx')))
    throw new Error('example models missing: run `pnpm studio prepare-examples` first');
  const repo = copyExamples({ linkModels: true }); // no spec writes a model file
  const p = await spawnStudio(repo);
  return {
    url: p.url.replace(/\/$/, ''),
    repo,
    async stop() {
      p.child.kill('SIGTERM');
      await Promise.race([p.exited, new Promise((r) => setTimeout(r, 5000))]);
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      removeDir(repo);
    },
  };
}

export interface BrowserSession {
  browser: Browser;
  page: Page;
  errors: string[];
}

/**
 * Debian's Chromium with a temp directory of its own (TMPDIR), made outside a test so it goes when the spec file
 * ends, after its afterAll hooks closed the browser: Chromium's own temp files (`.org.chromium.Chromium.*`) once
 * outlived a run's browsers and failed the run's leftover check.
 */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--disable-gpu', '--disable-quic', '--disable-sync', ...args],
    env: { ...process.env, TMPDIR: tempDir('chromium-') },
  });
}

/** Chromium at 1280×800 on `url` (extra command-line `args`, e.g. a fake microphone), with page errors collected (a spec asserts there are none). */
export async function openStudio(
  url: string,
  opts: { downloads?: boolean; args?: string[] } = {},
): Promise<BrowserSession> {
  const browser = await launchChromium(opts.args);
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    acceptDownloads: opts.downloads ?? false,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('.react-flow__node');
  return { browser, page, errors };
}

/** The canvas node with this graph node id. */
export const flowNode = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);

/**
 * Clicks a node until the editor shows it selected (up to 5 clicks). Under CI's load one click once left nothing
 * selected (cause not found: the canvas re-framing under the pointer is the likeliest), and the Delete pressed next
 * acted on nothing; a step that reads or acts on the selection must start from it.
 */
export async function selectNode(page: Page, id: string): Promise<void> {
  const selected = page.locator(`.react-flow__node.selected[data-id="${id}"]`);
  for (let attempt = 0; attempt < 5; attempt++) {
    await flowNode(page, id).click();
    try {
      await selected.waitFor({ timeout: 2_000 });
      return;
    } catch {
      // the click missed: try again
    }
  }
  throw new Error(`node '${id}' is not selected after 5 clicks on it`);
}

/** A port handle of a node (`data-handleid` = port name). */
export const handle = (page: Page, nodeId: string, port: string, type: 'source' | 'target') =>
  flowNode(page, nodeId).locator(
    `.react-flow__handle-${type === 'source' ? 'right' : 'left'}[data-handleid="${port}"]`,
  );

/** Drags from one handle to another with real pointer moves (React Flow needs intermediate moves). */
export async function dragConnect(
  page: Page,
  from: ReturnType<typeof handle>,
  to: ReturnType<typeof handle>,
): Promise<void> {
  const a = await from.boundingBox();
  const b = await to.boundingBox();
  if (!a || !b) throw new Error('handle not visible');
  const onTop = (x: number, y: number) =>
    page.evaluate(
      ([px, py]) => !!document.elementFromPoint(px!, py!)?.classList.contains('react-flow__handle'),
      [x, y],
    );
  if (!(await onTop(a.x + a.width / 2, a.y + a.height / 2)) || !(await onTop(b.x + b.width / 2, b.y + b.height / 2))) {
    throw new Error('a handle is covered (minimap, panel) or off-screen: fit the view first');
  }
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + 30, a.y + 10, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 10 });
  await page.mouse.up();
}

/** Waits until the viewport stops moving (fit-view and focus animate). */
export async function settle(page: Page): Promise<void> {
  const read = () => page.locator('.react-flow__viewport').getAttribute('style');
  let last = await read();
  let stable = 0;
  for (let i = 0; i < 60 && stable < 4; i++) {
    await page.waitForTimeout(100);
    const now = await read();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
}
