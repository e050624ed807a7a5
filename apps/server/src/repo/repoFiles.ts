import { readFileSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { RepoFile } from '@ensemble-studio/core';
import { safeJoin } from './safeJoin.ts';

/**
 * Writes a compiled file map under `outDir`: text files as they are, `copyFrom` files copied from the
 * source repository (files or whole directories, e.g. `model.onnx/`), entries with neither as directories.
 * Every path is checked with `safeJoin` against its root.
 * @example await writeRepoFiles('/tmp/out', compileGraph(g, cat).files, repo.dir)
 */
export async function writeRepoFiles(outDir: string, files: readonly RepoFile[], sourceRepoDir: string): Promise<void> {
  await mkdir(outDir, { recursive: true });
  for (const f of files) {
    const dest = safeJoin(outDir, f.path);
    if (f.text !== undefined) {
      await mkdir(dirname(dest), { recursive: true });
      await writeFile(dest, f.text);
    } else if (f.copyFrom !== undefined) {
      await mkdir(dirname(dest), { recursive: true });
      await cp(safeJoin(sourceRepoDir, f.copyFrom), dest, { recursive: true, dereference: true });
    } else {
      await mkdir(dest, { recursive: true });
    }
  }
}

function addTree(zip: Zippable, prefix: string, src: string): void {
  if (statSync(src).isDirectory()) {
    for (const name of readdirSync(src).sort()) addTree(zip, `${prefix}/${name}`, `${src}/${name}`);
  } else {
    zip[prefix] = readFileSync(src);
  }
}

/**
 * Zips a compiled file map (fflate, deflate level 6, fixed mtime so the same files give the same bytes).
 * `copyFrom` entries are read from `sourceRepoDir`; entries with neither text nor copyFrom become directories.
 * @example writeFileSync('ocr.zip', zipRepoFiles(result.files, repo.dir))
 */
export function zipRepoFiles(files: readonly RepoFile[], sourceRepoDir: string): Uint8Array {
  const zip: Zippable = {};
  for (const f of files) {
    safeJoin('/zip-root', f.path);
    if (f.text !== undefined) zip[f.path] = strToU8(f.text);
    else if (f.copyFrom !== undefined) addTree(zip, f.path, safeJoin(sourceRepoDir, f.copyFrom));
    else zip[f.path.endsWith('/') ? f.path : `${f.path}/`] = new Uint8Array(0); // a directory entry
  }
  return zipSync(zip, { level: 6, mtime: new Date('2024-01-01T00:00:00Z') });
}
