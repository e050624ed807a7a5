import { existsSync } from 'node:fs';
import { open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { syncDir, writeFileAtomic } from './atomicWrite.ts';

/** The journal of a multi-file save in progress: which temp file becomes which file. */
export const COMMIT_JOURNAL = '.studio-commit.json';
/** Temp files a save writes beside their target: `.<name>.<pid>.<n>.tmp`. */
const TEMP_FILE = /^\..+\.\d+\.\d+\.tmp$/;

let counter = 0;

async function writeTemp(dir: string, name: string, data: string): Promise<string> {
  const tmp = `.${name}.${process.pid}.${++counter}.tmp`;
  const fh = await open(join(dir, tmp), 'w', 0o644);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/**
 * Writes several files of one directory as one commit: every file is written to a temp file and
 * fsynced, then a journal naming the renames is written atomically, then the renames are done and
 * the journal removed. A crash before the journal leaves the old files (and temp files that
 * `recoverCommits` sweeps); a crash after it is rolled forward by `recoverCommits`, so the files
 * never disagree (studio.json from one save, config.pbtxt from another).
 * @example await commitFiles('/repo/ocr', { 'studio.json': json, 'config.pbtxt': pbtxt })
 */
export async function commitFiles(dir: string, files: Record<string, string>): Promise<void> {
  const renames: [string, string][] = [];
  try {
    for (const [name, data] of Object.entries(files)) renames.push([await writeTemp(dir, name, data), name]);
  } catch (err) {
    await Promise.all(renames.map(([tmp]) => rm(join(dir, tmp), { force: true })));
    throw err;
  }
  await writeFileAtomic(join(dir, COMMIT_JOURNAL), JSON.stringify({ renames }));
  await applyRenames(dir, renames);
  await rm(join(dir, COMMIT_JOURNAL), { force: true });
  await syncDir(dir);
}

async function applyRenames(dir: string, renames: readonly [string, string][]): Promise<void> {
  for (const [tmp, name] of renames) {
    if (existsSync(join(dir, tmp))) await rename(join(dir, tmp), join(dir, name));
  }
  await syncDir(dir);
}

function journalRenames(text: string): [string, string][] {
  const parsed = JSON.parse(text) as { renames?: unknown };
  if (!Array.isArray(parsed.renames)) return [];
  // Only plain names inside the directory: a journal is never trusted to point elsewhere.
  const plain = (s: unknown): s is string => typeof s === 'string' && s === basename(s) && s !== '..' && s !== '.';
  return parsed.renames.filter(
    (r): r is [string, string] => Array.isArray(r) && plain(r[0]) && plain(r[1]) && TEMP_FILE.test(r[0]),
  );
}

/**
 * Finishes saves a crash interrupted in `dir`: a journal's renames are completed (roll forward), and
 * temp files of saves that never reached their journal are removed. Returns what it did, for a log.
 * @example await recoverCommits('/repo/ocr') // ['completed an interrupted save: studio.json, config.pbtxt']
 */
export async function recoverCommits(dir: string): Promise<string[]> {
  const done: string[] = [];
  const journal = join(dir, COMMIT_JOURNAL);
  if (existsSync(journal)) {
    let renames: [string, string][];
    try {
      renames = journalRenames(await readFile(journal, 'utf8'));
    } catch {
      renames = [];
    }
    const pending = renames.filter(([tmp]) => existsSync(join(dir, tmp)));
    await applyRenames(dir, pending);
    await rm(journal, { force: true });
    if (pending.length > 0) done.push(`completed an interrupted save: ${pending.map(([, n]) => n).join(', ')}`);
  }
  const stray = (await readdir(dir)).filter((f) => TEMP_FILE.test(f));
  for (const f of stray) await rm(join(dir, f), { force: true });
  if (stray.length > 0) done.push(`removed ${stray.length} temp file(s) of an interrupted save`);
  return done;
}
