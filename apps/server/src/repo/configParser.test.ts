// Large config.pbtxt files are parsed in the config worker (the twelfth round's left stall: a 1 MiB config of half a
// million dims held every client ~214 ms during a repository load), with the inline parser's results and errors.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePbtxtLenient } from '@ensemble-studio/core';
import { describe, expect, it } from 'vitest';
import { removeTempDir, tempDir } from '../testing/tempDir.ts';
import { parseConfigBytes, WORKER_CONFIG_BYTES } from './configParser.ts';
import { loadRepository } from './loadRepository.ts';
import { loopTurns } from '../testing/loopTurns.ts';

const dims = (n: number) =>
  `name: "m"\nbackend: "python"\ninput [{ name: "x" data_type: TYPE_FP32 dims: [${new Array(n).fill(1).join(',')}] }]\n`;
const params = (n: number) =>
  `name: "m"\nbackend: "python"\n${Array.from({ length: n }, (_, i) => `parameters { key: "${i === 7 ? '__proto__' : `k${i}`}" value: { string_value: "v\\303\\251${i}" } }`).join('\n')}\n`;

describe('parseConfigBytes', () => {
  it('gives what the inline parser gives, for configs over the worker threshold, errors included', async () => {
    const texts = [
      dims(60_000),
      params(3_000),
      `${dims(40_000)}max_batch_size: 8\nmax_batch_size: x\n`,
      `${params(3_000)}nope: 1\n`,
      `${'# comment\n'.repeat(8_000)}name: "m"\nbackend: "python"\n`,
    ];
    for (const text of texts) {
      expect(Buffer.byteLength(text)).toBeGreaterThan(WORKER_CONFIG_BYTES);
      expect(await parseConfigBytes(Buffer.from(text))).toEqual(parsePbtxtLenient(text));
    }
    // A parameter keyed `__proto__` stays an own key, not the record's prototype.
    const r = await parseConfigBytes(Buffer.from(params(3_000)));
    expect(r.ok && Object.hasOwn(r.config.parameters!, '__proto__')).toBe(true);
    expect(r.ok && Object.getPrototypeOf(r.config.parameters)).toBe(Object.prototype);
  });

  it('parses a large config off the calling thread: the event loop keeps turning while it is parsed', async () => {
    const turns = loopTurns();
    const before = turns.count();
    const r = await parseConfigBytes(Buffer.from(dims(400_000)));
    const during = turns.count() - before;
    turns.stop();
    expect(r.ok && r.config.input?.[0]?.dims?.length).toBe(400_000);
    expect(during).toBeGreaterThan(0);
  });

  it('a repository with a large config loads it as before (a failure with its line and column)', async () => {
    const dir = tempDir('studio-config-worker-');
    try {
      mkdirSync(join(dir, 'big', '1'), { recursive: true });
      writeFileSync(join(dir, 'big', 'config.pbtxt'), `${dims(40_000).replace('"m"', '"big"')}oops\n`);
      const repo = await loadRepository(dir);
      expect(repo.catalogue.models.big?.error).toMatch(/^config\.pbtxt:5:1: /);
    } finally {
      removeTempDir(dir);
    }
  });
});
