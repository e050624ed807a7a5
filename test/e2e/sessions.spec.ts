import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { writeWav } from './helpers/media.ts';
import { flowNode, openStudio, startStudio, type BrowserSession, type Studio } from './helpers/studio.ts';
import { tempDir } from '../support/tempDir.ts';

// Sequence sessions in the browser against the real engine: two WAV streams side by side on the
// two-instance `vad` model, and a microphone (Chromium's fake capture device playing a WAV).

let studio: Studio;
let s: BrowserSession;
let page: Page;
const dir = tempDir('studio-sessions-');
const wav = writeWav(join(dir, 'speech.wav'), 6);

async function openVad(p: Page): Promise<void> {
  await p.locator('select[aria-label="Open graph"]').selectOption('vad-stream');
  await flowNode(p, 'vad').waitFor();
  await p.getByRole('tab', { name: 'Run' }).click();
}

const points = (card: Locator) => card.locator('svg.chart').getAttribute('data-points').then(Number);
const num = async (card: Locator, id: string) => Number(await card.getByTestId(id).innerText());

beforeAll(async () => {
  studio = await startStudio();
  // The fake device plays the WAV as the microphone; the fake UI grants the permission.
  s = await openStudio(studio.url, {
    args: [
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${wav}`,
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  page = s.page;
  await openVad(page);
});

afterAll(async () => {
  await s?.browser.close();
  await studio?.stop();
});

describe('sequence sessions', () => {
  it('runs two WAV sessions side by side on their own instances; cancelling one leaves the other running to its end', async () => {
    await page.getByLabel('Audio for audio').setInputFiles(wav);
    await expect.poll(() => page.locator('.run-input').innerText()).toContain('6.00 s at 16 kHz');
    const stream = page.getByRole('button', { name: '▶ Stream' });
    await stream.click();
    const cards = page.locator('.session-card');
    const first = cards.nth(0);
    const second = cards.nth(1);
    await expect.poll(() => first.getByTestId('instance').count(), { timeout: 30_000 }).toBe(1);
    await stream.click();
    await expect.poll(() => cards.count()).toBe(2);
    await expect.poll(() => second.getByTestId('instance').count(), { timeout: 30_000 }).toBe(1);
    const a = await first.getByTestId('instance').innerText();
    const b = await second.getByTestId('instance').innerText();
    expect(a).toMatch(/^vad/);
    expect(b).toMatch(/^vad/);
    expect(a).not.toBe(b); // a new sequence goes to the least-loaded of vad's two instances
    expect(await first.getByTestId('sequence-id').innerText()).not.toBe(
      await second.getByTestId('sequence-id').innerText(),
    );
    expect(await first.getByTestId('state').innerText()).toContain('state → stateN');
    // Side by side: the grid puts the cards on one row.
    const [ba, bb] = [await first.boundingBox(), await second.boundingBox()];
    expect(Math.abs(ba!.y - bb!.y)).toBeLessThan(2);
    expect(bb!.x).toBeGreaterThan(ba!.x + ba!.width - 1);

    await expect.poll(() => points(second), { timeout: 30_000 }).toBeGreaterThan(3);
    await first.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => first.getAttribute('data-ended')).toBe('true');
    expect(await first.getByTestId('ended').innerText()).toContain('cancelled');
    expect(await second.getAttribute('data-ended')).toBe('false');
    const after = await points(second);
    await expect.poll(() => points(second), { timeout: 30_000 }).toBeGreaterThan(after + 5);
    await expect.poll(() => second.getAttribute('data-ended'), { timeout: 60_000 }).toBe('true');
    expect(await second.getByTestId('ended').innerText()).toBe('ended (end)');
    const total = Math.ceil((6 * 16_000) / 512);
    expect(await num(second, 'sent')).toBe(total);
    expect(await num(second, 'acked')).toBe(total);
    expect(await num(first, 'acked')).toBeLessThan(total);
  });

  it('records the microphone: Record streams 16 kHz windows into a new session and Stop ends its sequence', async () => {
    await page.getByRole('button', { name: '● Record' }).click();
    const mic = page.locator('.session-card').filter({ hasText: 'microphone' });
    await expect.poll(() => mic.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => mic.getByTestId('instance').count(), { timeout: 30_000 }).toBe(1);
    expect(await mic.getByTestId('instance').innerText()).toMatch(/^vad/);
    await expect.poll(() => points(mic), { timeout: 30_000 }).toBeGreaterThan(10);
    const before = await points(mic);
    await expect.poll(() => points(mic), { timeout: 30_000 }).toBeGreaterThan(before + 5);
    await page.getByRole('button', { name: '■ Stop' }).first().click();
    await expect.poll(() => mic.getAttribute('data-ended'), { timeout: 30_000 }).toBe('true');
    expect(await mic.getByTestId('ended').innerText()).toBe('ended (end)');
    expect(await num(mic, 'acked')).toBe(await num(mic, 'sent'));
    expect(await page.getByRole('button', { name: '● Record' }).count()).toBe(1);
    expect(s.errors).toEqual([]);
  });
});
