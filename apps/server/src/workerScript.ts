// Worker threads run TypeScript entries (a model's worker, the body parser, the config parser). Node cannot load
// TypeScript, and tsx's loader booted inside a worker thread costs ~2 s of CPU per thread: its hooks resolve and
// load each of the entry's ~130 modules across threads. A model's worker is started once per model instance, so a
// server with six instances paid ~13 s of CPU to start. Instead each entry is bundled once by esbuild into one
// plain ESM file kept in node_modules/.cache and rebuilt when one of its sources changes; a worker boots that
// in ~0.3 s. Where a bundle cannot be made (an unwritable install), the worker boots through tsx's loader as before.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import * as esbuild from 'esbuild';

/** Boots a worker through tsx's loader; the TypeScript entry is `workerData.entry`. */
const TSX_BOOT = new URL('./workerBoot.mjs', import.meta.url);

/** Where bundles are kept (the server's own cache folder, beside its packages). */
const WORKER_BUNDLE_DIR = fileURLToPath(new URL('../node_modules/.cache/ensemble-studio-workers/', import.meta.url));

/** The first line of a bundle: what it was built from, to tell when it is stale. */
const HEADER = '// ensemble-studio worker bundle ';
const FORMAT = 2;

/** One source of a bundle as it was when bundled: path, modification time, size. */
type Input = [path: string, mtimeMs: number, size: number];

interface Header {
  format: number;
  esbuild: string;
  inputs: Input[];
}

/** Marks a resolution the plugin asked for itself. */
const OWN = Symbol('workspace-only');

/**
 * The workspace's TypeScript is bundled; Node's built-ins, and packages from node_modules (onnxruntime's native
 * binding among them), are imported at run time from where each source's import finds them. Each module keeps its
 * own `import.meta.url`, so files found beside a source (the gRPC .proto files) are found from the bundle too.
 */
const workspaceOnly: esbuild.Plugin = {
  name: 'workspace-only',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === OWN || args.path.startsWith('@ensemble-studio/')) return undefined;
      if (isBuiltin(args.path)) return { external: true };
      const found = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: OWN,
      });
      return found.errors.length > 0
        ? { errors: found.errors }
        : { path: pathToFileURL(found.path).href, external: true };
    });
    build.onLoad({ filter: /\.[cm]?tsx?$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replaceAll(
        'import.meta.url',
        JSON.stringify(pathToFileURL(args.path).href),
      ),
      loader: args.path.endsWith('x') ? 'tsx' : 'ts',
    }));
  },
};

async function unchanged(inputs: Input[]): Promise<boolean> {
  const now = await Promise.all(inputs.map(([path]) => stat(path).catch(() => undefined)));
  return inputs.every(([, mtimeMs, size], i) => now[i]?.mtimeMs === mtimeMs && now[i]?.size === size);
}

/** What the bundle at `file` was built from; undefined when there is none, or no readable header (rebuilt then). */
async function headerOf(file: string): Promise<Header | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (!text?.startsWith(HEADER)) return undefined;
  try {
    const header = JSON.parse(text.slice(HEADER.length, text.indexOf('\n'))) as Header;
    return Array.isArray(header.inputs) ? header : undefined;
  } catch {
    return undefined;
  }
}

/** The bundle at `file` when it was built from the sources as they are now. */
async function freshBundle(file: string): Promise<boolean> {
  const header = await headerOf(file);
  return header?.format === FORMAT && header.esbuild === esbuild.version && (await unchanged(header.inputs));
}

/** Bundles `entry` into `file` (written whole, then renamed into place, so a reader never sees half of one). */
async function build(entry: string, file: string): Promise<void> {
  const root = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [workspaceOnly],
  });
  const paths = Object.keys(result.metafile.inputs).map((p) => resolve(root, p));
  const stats = await Promise.all(paths.map((p) => stat(p)));
  const header: Header = {
    format: FORMAT,
    esbuild: esbuild.version,
    inputs: paths.map((p, i) => [p, stats[i]!.mtimeMs, stats[i]!.size]),
  };
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, `${HEADER}${JSON.stringify(header)}\n${result.outputFiles[0]!.text}`);
  await rename(temp, file);
}

/** The file a worker runs for `entry`, and the workerData it needs for it. */
interface WorkerScript {
  url: URL;
  workerData: { entry?: string };
}

/**
 * The file URL of `entry` bundled (a TypeScript module and what it imports from the workspace) in `dir`: the bundle
 * already there when its sources are as they were, else one built now.
 * @example new Worker(await bundleWorker(new URL('./worker.ts', import.meta.url), WORKER_BUNDLE_DIR))
 */
export async function bundleWorker(entry: URL, dir: string): Promise<URL> {
  const path = fileURLToPath(entry);
  const id = createHash('sha256').update(path).digest('hex').slice(0, 12);
  const file = join(dir, `${basename(path).replace(/\.[cm]?tsx?$/, '')}-${id}.mjs`);
  if (!(await freshBundle(file))) {
    await mkdir(dir, { recursive: true });
    await build(path, file);
  }
  return pathToFileURL(file);
}

const scripts = new Map<string, Promise<WorkerScript>>();

/**
 * The script a worker thread runs for the TypeScript module `entry`: its bundle, made or checked once per process
 * (a process keeps the code it started with, as its main thread does), or tsx's boot when no bundle can be made.
 */
export function workerScript(entry: URL, dir = WORKER_BUNDLE_DIR): Promise<WorkerScript> {
  const key = `${dir}\0${entry.href}`;
  let script = scripts.get(key);
  if (!script) {
    script = bundleWorker(entry, dir).then(
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
