// TypeScript entries (worker threads, the CLI) run as esbuild bundles, rebuilt when a source changes.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLE_DIR, bundleScript } from './scriptBundle.mjs';
import { tempDir } from './testing/tempDir.ts';

/** Writes `files` into a fresh folder of ES modules; the URL of its `entry.ts`. */
function sources(files: Record<string, string>): { dir: string; entry: URL } {
  const dir = tempDir('bundle-src-');
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, entry: pathToFileURL(join(dir, 'entry.ts')) };
}

/** What the bundle's `run()` resolves to, in a process of its own (a module once imported stays in a process). */
function runIn(url: URL): unknown {
  const script = `import(${JSON.stringify(url.href)}).then(async (m) => console.log(JSON.stringify(await m.run())))`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
}

describe('bundleScript', () => {
  it('bundles an entry once, keeps it while its sources stay, and rebuilds it when one changes', async () => {
    const { dir, entry } = sources({
      'helper.ts': `export const says: string = "first";\n`,
      'entry.ts': `import { says } from './helper.ts';\nexport const run = (): string => says;\n`,
    });
    const out = tempDir('bundle-out-');
    const url = await bundleScript(entry, out);
    const built = statSync(url).mtimeMs;
    expect(readFileSync(url, 'utf8')).toContain('"first"');

    expect((await bundleScript(entry, out)).href).toBe(url.href);
    expect(statSync(url).mtimeMs).toBe(built);

    writeFileSync(join(dir, 'helper.ts'), readFileSync(join(dir, 'helper.ts'), 'utf8').replace('first', 'second'));
    await bundleScript(entry, out);
    expect(readFileSync(url, 'utf8')).toContain('"second"');
    expect(readFileSync(url, 'utf8')).not.toContain('"first"');

    // A bundle whose first line cannot be read (cut short, say) is built again, not given up on.
    writeFileSync(url, readFileSync(url, 'utf8').slice(0, 60));
    await bundleScript(entry, out);
    expect(readFileSync(url, 'utf8')).toContain('"second"');
    expect(readdirSync(out).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('loads what an entry imports dynamically when it is imported, with one copy of the modules both use', async () => {
    const { dir, entry } = sources({
      'state.ts': `export const seen: string[] = [];\n`,
      'lazy.ts':
        `import { gzipSync } from 'node:zlib';\nimport { seen } from './state.ts';\n` +
        `export const value = (): string[] => [...seen, gzipSync('x').length > 0 ? 'lazy 1' : ''];\n`,
      'entry.ts':
        `import { seen } from './state.ts';\nseen.push('entry');\n` +
        `export async function run(): Promise<string[]> {\n  return (await import('./lazy.ts')).value();\n}\n`,
    });
    const out = tempDir('bundle-out-');
    const url = await bundleScript(entry, out);
    expect(readFileSync(url, 'utf8')).not.toContain('node:zlib');
    expect(runIn(url)).toEqual(['entry', 'lazy 1']);

    // The entry's bundle is stale when the module it imports dynamically changes.
    writeFileSync(join(dir, 'lazy.ts'), readFileSync(join(dir, 'lazy.ts'), 'utf8').replace('lazy 1', 'lazy 2'));
    expect(runIn(await bundleScript(entry, out))).toEqual(['entry', 'lazy 2']);
  });

  it('deletes the chunks no bundle imports once they are an hour old, and keeps the rest', async () => {
    const { dir, entry } = sources({
      'lazy.ts': `export const value = 1;\n`,
      'entry.ts': `export const run = async (): Promise<number> => (await import('./lazy.ts')).value;\n`,
    });
    const out = tempDir('bundle-out-');
    await bundleScript(entry, out);
    const chunks = () => readdirSync(out).filter((f) => f.startsWith('chunk-'));
    const [first] = chunks();
    const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
    utimesSync(join(out, first!), hoursAgo(2), hoursAgo(2));
    writeFileSync(join(out, 'chunk-RECENT.mjs'), '');

    writeFileSync(join(dir, 'lazy.ts'), `export const value = 2;\n`);
    const url = await bundleScript(entry, out);
    expect(runIn(url)).toBe(2);
    expect(chunks()).not.toContain(first);
    expect(chunks()).toContain('chunk-RECENT.mjs');
    // The new chunk is kept, however old, while the entry imports it.
    const [current] = chunks().filter((f) => f !== 'chunk-RECENT.mjs');
    utimesSync(join(out, current!), hoursAgo(2), hoursAgo(2));
    writeFileSync(join(dir, 'entry.ts'), `${readFileSync(join(dir, 'entry.ts'), 'utf8')}// changed\n`);
    expect(runIn(await bundleScript(entry, out))).toBe(2);
    expect(chunks()).toContain(current);
  });

  it("keeps each module's import.meta.url, dirname and filename, JavaScript's too: its source's, not the bundle's", async () => {
    const { dir, entry } = sources({
      'plain.mjs': `export const where = import.meta.url;\n`,
      'entry.ts':
        `import { where } from './plain.mjs';\n` +
        `export const run = () => [import.meta.url, import.meta.dirname, import.meta.filename, where];\n`,
    });
    const path = join(dir, 'entry.ts');
    expect(runIn(await bundleScript(entry, tempDir('bundle-out-')))).toEqual([
      pathToFileURL(path).href,
      dir,
      path,
      pathToFileURL(join(dir, 'plain.mjs')).href,
    ]);
  });

  it('bundles a module that bundles: the bundler inside a bundle keeps its cache and rewrites what it bundles', async () => {
    const bundler = fileURLToPath(new URL('./scriptBundle.mjs', import.meta.url));
    const { dir, entry } = sources({
      'plain.mjs': `export const where = import.meta.url;\n`,
      'inner.ts': `import { where } from './plain.mjs';\nexport const run = () => [import.meta.url, where];\n`,
      'entry.ts':
        `import { BUNDLE_DIR, bundleScript } from ${JSON.stringify(bundler)};\n` +
        `export async function run(): Promise<unknown> {\n` +
        `  const inner = await bundleScript(new URL('./inner.ts', import.meta.url), process.env.INNER_OUT);\n` +
        `  return [BUNDLE_DIR, await (await import(inner.href)).run()];\n}\n`,
    });
    process.env.INNER_OUT = tempDir('bundle-inner-');
    try {
      expect(runIn(await bundleScript(entry, tempDir('bundle-out-')))).toEqual([
        BUNDLE_DIR,
        [pathToFileURL(join(dir, 'inner.ts')).href, pathToFileURL(join(dir, 'plain.mjs')).href],
      ]);
    } finally {
      delete process.env.INNER_OUT;
    }
  });
});
