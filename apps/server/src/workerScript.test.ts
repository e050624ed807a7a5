// Worker threads run a bundle of their TypeScript entry (scriptBundle.test.ts); tsx's loader when none can be made.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { tempDir } from './testing/tempDir.ts';
import { startWorker, workerScript } from './workerScript.ts';

/** An entry importing a module of its own: the worker posts what the module says and its `import.meta.url`. */
function writeEntry(dir: string, says: string): URL {
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  writeFileSync(
    join(dir, 'helper.ts'),
    `export const says: string = ${JSON.stringify(says)};\nexport const where: string = import.meta.url;\n`,
  );
  writeFileSync(
    join(dir, 'entry.ts'),
    `import { parentPort, workerData } from 'node:worker_threads';\nimport { says, where } from './helper.ts';\n` +
      `parentPort!.postMessage({ says, where, extra: workerData.extra });\n`,
  );
  return pathToFileURL(join(dir, 'entry.ts'));
}

function firstMessage(worker: Worker): Promise<{ says: string; where: string; extra: unknown }> {
  return new Promise((resolve, reject) => {
    worker.once('message', (m) => void worker.terminate().then(() => resolve(m)));
    worker.once('error', reject);
  });
}

describe('worker scripts', () => {
  it("runs the bundle in a worker, each module keeping its own import.meta.url and the caller's workerData", async () => {
    const src = tempDir('worker-src-');
    const out = tempDir('worker-bundles-');
    const entry = writeEntry(src, 'hello');
    const script = await workerScript(entry, out);
    expect(script.url.pathname.startsWith(out)).toBe(true);
    expect(script.workerData).toEqual({});
    const message = await firstMessage(await startWorker(entry, { workerData: { extra: 7 } }, out));
    expect(message).toEqual({ says: 'hello', where: pathToFileURL(join(src, 'helper.ts')).href, extra: 7 });
  });

  it("starts the worker through tsx's loader, with a warning, when no bundle can be made", async () => {
    const src = tempDir('worker-src-');
    const entry = writeEntry(src, 'via tsx');
    // A directory below a regular file cannot be made.
    writeFileSync(join(src, 'file'), '');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const script = await workerScript(entry, join(src, 'file', 'bundles'));
      expect(script.url.pathname.endsWith('/workerBoot.mjs')).toBe(true);
      expect(script.workerData).toEqual({ entry: entry.href });
      const message = await firstMessage(
        await startWorker(entry, { workerData: { extra: 'x' } }, join(src, 'file', 'bundles')),
      );
      expect(message).toEqual({ says: 'via tsx', where: pathToFileURL(join(src, 'helper.ts')).href, extra: 'x' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.join('\n')).toMatch(
        /cannot bundle .*entry\.ts for worker threads \(.*\); they start through tsx's loader/,
      );
    } finally {
      process.off('warning', onWarning);
    }
  });
});
