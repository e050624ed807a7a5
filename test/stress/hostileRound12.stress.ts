// The twelfth independent hostile-input round, as regression cases: a config.pbtxt just under the size limit whose
// shape made the text-format lexer slow (half a million dims), loaded through the repository API, against a real
// `studio serve` with a bystander asking /v2/health/ready from a process of its own.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { http, spawnStudio } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { probedStudio } from './hostileProbe.ts';

/** config.pbtxt's size limit (the tenth round's): the largest config a load parses. */
const CONFIG_LIMIT = 1 << 20;

let repo = '';
const { studio, probe } = probedStudio(() => {
  repo = tempDir('studio-round12-');
  return spawnStudio(repo);
});

describe('hostile input, twelfth round', () => {
  it('a 1 MiB config.pbtxt of half a million dims is parsed without holding other clients', async () => {
    // A token object and two closures per dim, and a BigInt per integer: ~1.5-3 s of the main thread.
    mkdirSync(join(repo, 'many_dims'));
    const head = 'name: "many_dims"\nbackend: "python"\ninput [{ name: "x" data_type: TYPE_FP32 dims: [';
    const dims = Math.floor((CONFIG_LIMIT - head.length - 80) / 2);
    writeFileSync(
      join(repo, 'many_dims', 'config.pbtxt'),
      `${head}${Array<string>(dims).fill('1').join(',')}] }]\noutput [{ name: "y" data_type: TYPE_FP32 dims: [1] }]\n`,
    );
    const r = await probe('a load of a 1 MiB config.pbtxt of dims', () =>
      http(`${studio.url}/v2/repository/models/many_dims/load`, { method: 'POST' }),
    );
    expect([r.status, r.json]).toEqual([
      400,
      { error: "load failed for model 'many_dims': model 'many_dims' has no model file in the repository" },
    ]);
  });
});
