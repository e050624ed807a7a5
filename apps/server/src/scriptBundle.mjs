// @ts-check
// Node 20 cannot load TypeScript, and tsx's loader is slow to boot what the server imports: its hooks resolve and
// load every module, node_modules included, on a thread of their own. A worker thread booted through it paid ~2 s
// of CPU, the CLI's main thread ~4 s before `serve` listened. Instead each TypeScript entry is bundled once by
// esbuild into plain ESM kept in node_modules/.cache and rebuilt when one of its sources changes. Plain JavaScript,
// so that the CLI's launcher (bin/ensemble-studio.mjs) can use it before anything can load TypeScript.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

/** Where bundles are kept (the server's own cache folder, beside its packages). */
export const BUNDLE_DIR = fileURLToPath(new URL('../node_modules/.cache/ensemble-studio-workers/', import.meta.url));

/** The workspace's root: bundles name their sources relative to it. */
const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The first line of a bundle: what it was built from, to tell when it is stale. */
const HEADER = '// ensemble-studio worker bundle ';
const FORMAT = 4;

/**
 * One source of a bundle as it was when bundled: path, modification time, size.
 * @typedef {[path: string, mtimeMs: number, size: number]} Input
 */
/** @typedef {{ format: number; esbuild: string; inputs: Input[] }} Header */

/** Marks a resolution the plugin asked for itself. */
const OWN = Symbol('workspace-only');

/**
 * The `import.meta` properties that name a module's own place. A pattern, not the words themselves: this file is
 * bundled too (into the CLI and the bench), and its own text must not be rewritten into something else.
 */
const OWN_PLACE = /\bimport\.meta\.(url|dirname|filename)\b/g;

/** A workspace source with each `import.meta` property that names its own place replaced by that place. */
async function sourceAtItsPlace(/** @type {string} */ path) {
  const place = { url: pathToFileURL(path).href, dirname: dirname(path), filename: path };
  return (await readFile(path, 'utf8')).replace(OWN_PLACE, (_, key) =>
    JSON.stringify(place[/** @type {keyof typeof place} */ (key)]),
  );
}

/**
 * The workspace's TypeScript is bundled; Node's built-ins, and packages from node_modules (onnxruntime's native
 * binding among them), are imported at run time from where each source's import finds them. Each module keeps its
 * own `import.meta.url`, so files found beside a source (the gRPC .proto files) are found from the bundle too.
 * @type {esbuild.Plugin}
 */
const workspaceOnly = {
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
    // JavaScript too: this file, bundled into the CLI and the bench, must find the cache from its own place.
    build.onLoad({ filter: /\.(?:[cm]?tsx?|[cm]?js)$/ }, async (args) => ({
      contents: await sourceAtItsPlace(args.path),
      loader: /\.[cm]?js$/.test(args.path) ? 'js' : args.path.endsWith('x') ? 'tsx' : 'ts',
    }));
  },
};

/** Numbers this process's temporary files. */
let temps = 0;

/** True when every input has the time and size it was bundled with. */
async function unchanged(/** @type {Input[]} */ inputs) {
  const now = await Promise.all(inputs.map(([path]) => stat(path).catch(() => undefined)));
  return inputs.every(([, mtimeMs, size], i) => now[i]?.mtimeMs === mtimeMs && now[i]?.size === size);
}

/**
 * True when the bundle at `file` was built by this esbuild from the sources as they are now; false when it is stale,
 * missing, or its first line cannot be read (it is rebuilt then).
 */
async function fresh(/** @type {string} */ file) {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (!text?.startsWith(HEADER)) return false;
  /** @type {Header} */
  let header;
  try {
    header = JSON.parse(text.slice(HEADER.length, text.indexOf('\n')));
  } catch {
    return false;
  }
  const current = header.format === FORMAT && header.esbuild === esbuild.version && Array.isArray(header.inputs);
  return current && (await unchanged(header.inputs));
}

/** Writes `text` to `file` whole: a reader sees the file as it was or as it is now, never half of it. */
async function writeWhole(/** @type {string} */ file, /** @type {string} */ text) {
  const temp = `${file}.${process.pid}.${++temps}.tmp`;
  await writeFile(temp, text);
  await rename(temp, file);
}

/**
 * Bundles `entry` into `file`. What it imports dynamically (the CLI's commands) goes into chunks beside it, loaded
 * when it is imported, with the modules shared between them in chunks of their own (one copy of each module's
 * state): in one file, the packages those import would load when the entry starts. Chunks are named by their
 * content, so they are written before the entry and never rewritten; those no bundle imports any more are deleted.
 */
async function build(/** @type {string} */ entry, /** @type {string} */ file) {
  const result = await esbuild.build({
    entryPoints: [entry],
    absWorkingDir: ROOT,
    bundle: true,
    splitting: true,
    outdir: dirname(file),
    entryNames: basename(file, '.mjs'),
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [workspaceOnly],
  });
  const paths = Object.keys(result.metafile.inputs).map((p) => resolve(ROOT, p));
  const stats = await Promise.all(paths.map((p) => stat(p)));
  /** @type {Header} */
  const header = {
    format: FORMAT,
    esbuild: esbuild.version,
    inputs: paths.map((p, i) => [p, stats[i].mtimeMs, stats[i].size]),
  };
  const chunks = result.outputFiles.filter((out) => out.path !== file);
  await Promise.all(chunks.map(async (out) => (await exists(out.path)) || writeWhole(out.path, out.text)));
  const main = result.outputFiles.find((out) => out.path === file);
  if (!main) throw new Error(`esbuild wrote no ${basename(file)}`);
  await writeWhole(file, `${HEADER}${JSON.stringify(header)}\n${main.text}`);
  await pruneChunks(dirname(file));
}

/** A chunk older than this that no bundle imports is deleted (a process loads its chunks when it starts). */
const CHUNK_KEPT_MS = 60 * 60 * 1000;
const CHUNK_IMPORT = /\.\/(chunk-[A-Za-z0-9]+\.mjs)/g;

/** Deletes the chunks in `dir` that no bundle imports any more (left by builds of sources since changed). */
async function pruneChunks(/** @type {string} */ dir) {
  const names = await readdir(dir);
  const read = (/** @type {string} */ name) => readFile(join(dir, name), 'utf8').catch(() => '');
  const reached = new Set();
  let texts = await Promise.all(names.filter((n) => n.endsWith('.mjs') && !n.startsWith('chunk-')).map(read));
  while (texts.length > 0) {
    const found = new Set(texts.flatMap((text) => [...text.matchAll(CHUNK_IMPORT)].map((m) => m[1])));
    const next = [...found].filter((name) => !reached.has(name));
    for (const name of next) reached.add(name);
    texts = await Promise.all(next.map(read));
  }
  const old = Date.now() - CHUNK_KEPT_MS;
  for (const name of names.filter((n) => n.startsWith('chunk-') && n.endsWith('.mjs') && !reached.has(n))) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info && info.mtimeMs < old) await unlink(join(dir, name)).catch(() => {});
  }
}

/** True when `path` exists. */
const exists = (/** @type {string} */ path) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** @type {Map<string, Promise<string>>} bundles being checked or built by this process */
const ensuring = new Map();

/**
 * The bundle of the TypeScript module at `path` in `dir`: the one already there when its sources are as they were,
 * else one built now.
 * @returns {Promise<string>}
 */
function ensureBundle(/** @type {string} */ path, /** @type {string} */ dir) {
  const id = createHash('sha256').update(path).digest('hex').slice(0, 12);
  const file = join(dir, `${basename(path).replace(/\.[cm]?tsx?$/, '')}-${id}.mjs`);
  let ensured = ensuring.get(file);
  if (!ensured) {
    ensured = (async () => {
      if (await fresh(file)) return file;
      await mkdir(dir, { recursive: true });
      await build(path, file);
      return file;
    })().finally(() => ensuring.delete(file));
    ensuring.set(file, ensured);
  }
  return ensured;
}

/**
 * The file URL of `entry` bundled (a TypeScript module and what it imports from the workspace) in `dir`.
 * @example new Worker(await bundleScript(new URL('./worker.ts', import.meta.url)))
 * @param {URL} entry
 * @returns {Promise<URL>}
 */
export async function bundleScript(entry, dir = BUNDLE_DIR) {
  return pathToFileURL(await ensureBundle(fileURLToPath(entry), dir));
}
