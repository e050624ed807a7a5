// Worker threads run TypeScript entries (a model's worker, the body parser, the config parser). Each runs its entry's
// bundle (scriptBundle.mjs: booted in ~0.3 s of CPU, against ~2 s for a thread booting tsx's loader, which a server
// with six model instances paid six times over). Where a bundle cannot be made (an unwritable install), the worker
// boots through tsx's loader as before, with a warning.
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { BUNDLE_DIR, bundleScript } from './scriptBundle.mjs';

/** Boots a worker through tsx's loader; the TypeScript entry is `workerData.entry`. */
const TSX_BOOT = new URL('./workerBoot.mjs', import.meta.url);

/** The file a worker runs for `entry`, and the workerData it needs for it. */
interface WorkerScript {
  url: URL;
  workerData: { entry?: string };
}

const scripts = new Map<string, Promise<WorkerScript>>();

/**
 * The script a worker thread runs for the TypeScript module `entry`: its bundle, made or checked once per process
 * (a process keeps the code it started with, as its main thread does), or tsx's boot when no bundle can be made.
 */
export function workerScript(entry: URL, dir = BUNDLE_DIR): Promise<WorkerScript> {
  const key = `${dir}\0${entry.href}`;
  let script = scripts.get(key);
  if (!script) {
    script = bundleScript(entry, dir).then(
      (url): WorkerScript => ({ url, workerData: {} }),
      (err: Error): WorkerScript => {
        process.emitWarning(
          `cannot bundle ${entry.pathname} for worker threads (${err.message}); they start through tsx's loader, slower`,
        );
        return { url: TSX_BOOT, workerData: { entry: entry.href } };
      },
    );
    scripts.set(key, script);
  }
  return script;
}

/**
 * A worker thread running the TypeScript module `entry`, `options.workerData` beside what its script needs.
 * @example const worker = await startWorker(new URL('./worker.ts', import.meta.url), { workerData: { n: 1 } })
 */
export async function startWorker(entry: URL, options: WorkerOptions = {}, dir?: string): Promise<Worker> {
  const script = await workerScript(entry, dir);
  return new Worker(script.url, {
    ...options,
    workerData: { ...(options.workerData as object | undefined), ...script.workerData },
  });
}
