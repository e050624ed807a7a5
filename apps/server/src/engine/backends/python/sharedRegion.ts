import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../../../pidAlive.ts';

// A file in a tmpfs (/dev/shm) that one side of a stub's pipes writes large tensors into and the other reads them
// from, so a 4.9 MB tensor crosses in one pwrite and one pread instead of ~75 pipe reads, and into pages the
// file already holds from earlier requests instead of fresh ones. Node cannot mmap, so both sides use
// pread/pwrite on a descriptor kept open; the file is unlinked as soon as both sides have opened it.

const PREFIX = 'ensemble-studio-py-';
const PAGE = 4096;

/** Tensors smaller than this ride in their frame: below one pipe read (64 KiB) the pipe costs no extra wake-up. */
export const REGION_MIN_TENSOR_BYTES = 64 * 1024;

/**
 * The most one region file may hold at once: room for a few tensors of the server's largest body, at most
 * 256 MiB; a tensor that does not fit goes through the pipe instead.
 */
export function regionMaxBytes(maxBodyBytes: number | undefined): number {
  return Math.min(256 * 1024 * 1024, 4 * (maxBodyBytes ?? Infinity));
}

const swept = new Set<string>();

/**
 * Removes region files left by server processes that no longer run (killed before the stub opened them): a
 * file's name starts with the pid of the process that made it.
 */
function sweepOrphans(dir: string): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pidAlive(pid)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      /* gone meanwhile, or not ours to remove */
    }
  }
}

/** First-fit ranges of a region, page-aligned so each tensor starts on a page of its own. */
class Ranges {
  /** In use, sorted by start: [start, end). */
  private used: [number, number][] = [];

  constructor(private readonly max: number) {}

  take(n: number): number | undefined {
    const size = Math.max(PAGE, Math.ceil(n / PAGE) * PAGE);
    let at = 0;
    let i = 0;
    for (; i < this.used.length; i++) {
      if (this.used[i]![0] - at >= size) break;
      at = this.used[i]![1];
    }
    if (at + size > this.max) return undefined;
    this.used.splice(i, 0, [at, at + size]);
    return at;
  }

  give(start: number): void {
    const i = this.used.findIndex((r) => r[0] === start);
    if (i >= 0) this.used.splice(i, 1);
  }
}

/** One region file: its path (until unlinked) and the descriptor this process keeps open. */
export class RegionFile {
  private linked = true;
  private readonly ranges: Ranges;

  private constructor(
    readonly path: string,
    readonly fd: number,
    maxBytes: number,
  ) {
    this.ranges = new Ranges(maxBytes);
  }

  /**
   * A new empty region file in `dir` for `label`, or undefined when the directory cannot hold one (missing,
   * not writable): the caller then keeps to the pipes.
   */
  static create(dir: string, label: string, maxBytes: number): RegionFile | undefined {
    sweepOrphans(dir);
    const safe = label.replace(/[^A-Za-z0-9_.]/g, '_');
    const path = join(dir, `${PREFIX}${process.pid}-${safe}-${randomBytes(6).toString('hex')}`);
    try {
      return new RegionFile(path, openSync(path, 'wx+', 0o600), maxBytes);
    } catch {
      return undefined;
    }
  }

  /** Writes `bytes` into a free range; its offset, or undefined when the region is full or the write fails. */
  put(bytes: Uint8Array): number | undefined {
    const at = this.ranges.take(bytes.byteLength);
    if (at === undefined) return undefined;
    try {
      for (let done = 0; done < bytes.byteLength;)
        done += writeSync(this.fd, bytes, done, bytes.byteLength - done, at + done);
      return at;
    } catch {
      // ENOSPC (the tmpfs is full) and the like: this tensor goes through the pipe.
      this.ranges.give(at);
      return undefined;
    }
  }

  /** Frees the range at `offset` (the peer has copied what was there). */
  free(offset: number): void {
    this.ranges.give(offset);
  }

  /** A fresh buffer with `nbytes` read from `offset` (the peer wrote them there). */
  read(offset: number, nbytes: number): Buffer {
    const out = Buffer.allocUnsafeSlow(nbytes);
    for (let done = 0; done < nbytes;) {
      const n = readSync(this.fd, out, done, nbytes - done, offset + done);
      if (n === 0) throw new Error(`region bytes ${offset}..${offset + nbytes} lie past the region's end`);
      done += n;
    }
    return out;
  }

  /** Removes the name (the descriptors stay valid); safe to call more than once. */
  unlink(): void {
    if (!this.linked) return;
    this.linked = false;
    try {
      unlinkSync(this.path);
    } catch {
      /* the stub removed it already */
    }
  }

  /** Removes the name and closes this process's descriptor. */
  close(): void {
    this.unlink();
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
  }
}
