import { createHash } from 'node:crypto';
import type { Tensor } from '@ensemble-studio/core';

/** What `insert` did: stored it, found the key already there (a request that missed alongside), or found it too big. */
export type InsertOutcome = 'inserted' | 'exists' | 'too-large';

/** What the cache holds now (for its owner's metrics). */
export interface ResponseCacheStats {
  entries: number;
  bytes: number;
  sizeBytes: number;
  evictions: number;
}

interface Entry {
  outputs: Record<string, Tensor>;
  bytes: number;
}

/**
 * Triton's response cache with its `local` implementation (`serve --cache-config local,size=N`): a model's outputs
 * kept by a key of its request's inputs, up to `sizeBytes` of tensor data, the least recently used entry evicted
 * first. Only models whose config says `response_cache { enable: true }` use it (ModelRuntime). Tensors go in and
 * come out as copies: a caller may move what it got to another thread.
 * @example const cache = new ResponseCache(1 << 20); cache.insert(key, outputs); cache.lookup(key)?.y
 */
export class ResponseCache {
  /** In use order: the first is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private evictions = 0;

  constructor(readonly sizeBytes: number) {}

  /**
   * A request's key: the model's name and version, then each input by name with its data type, shape and bytes.
   * Triton hashes names and bytes alone; the type and shape are in the key too, so that two requests whose data
   * happen to have the same bytes in other shapes never share a response. SHA-256, as a client may choose inputs.
   */
  static keyOf(model: string, version: number, inputs: Readonly<Record<string, Tensor>>): string {
    const h = createHash('sha256');
    h.update(`${model}\u0000${version}\u0000`);
    for (const name of Object.keys(inputs).sort()) {
      const t = inputs[name]!;
      h.update(`${name}\u0000${t.datatype}\u0000${t.shape.join(',')}\u0000`);
      if (Array.isArray(t.data)) {
        for (const s of t.data as string[]) {
          const bytes = Buffer.from(s, 'utf8');
          h.update(`${bytes.length}:`);
          h.update(bytes);
        }
      } else {
        const d = t.data as Exclude<Tensor['data'], string[]>;
        h.update(new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
      }
    }
    return h.digest('hex');
  }

  /** A copy of the outputs kept under `key`, now the most recently used; undefined on a miss. */
  lookup(key: string): Record<string, Tensor> | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return copyOutputs(e.outputs);
  }

  /** Keeps a copy of `outputs` under `key`, evicting the least recently used entries to make room. */
  insert(key: string, outputs: Readonly<Record<string, Tensor>>): InsertOutcome {
    if (this.entries.has(key)) return 'exists';
    const bytes = outputsBytes(outputs);
    if (bytes > this.sizeBytes) return 'too-large';
    for (const [old, e] of this.entries) {
      if (this.bytes + bytes <= this.sizeBytes) break;
      this.entries.delete(old);
      this.bytes -= e.bytes;
      this.evictions++;
    }
    this.entries.set(key, { outputs: copyOutputs(outputs), bytes });
    this.bytes += bytes;
    return 'inserted';
  }

  get stats(): ResponseCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, sizeBytes: this.sizeBytes, evictions: this.evictions };
  }
}

/** The bytes of tensor data in `outputs` (a BYTES element: its UTF-8 bytes and Triton's 4-byte length). */
function outputsBytes(outputs: Readonly<Record<string, Tensor>>): number {
  let n = 0;
  for (const t of Object.values(outputs)) {
    if (Array.isArray(t.data)) for (const s of t.data as string[]) n += 4 + Buffer.byteLength(s, 'utf8');
    else n += (t.data as Exclude<Tensor['data'], string[]>).byteLength;
  }
  return n;
}

function copyOutputs(outputs: Readonly<Record<string, Tensor>>): Record<string, Tensor> {
  const out: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(outputs))
    out[name] = { datatype: t.datatype, shape: [...t.shape], data: t.data.slice() as Tensor['data'] };
  return out;
}
