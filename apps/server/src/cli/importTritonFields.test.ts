import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePbtxt } from '@ensemble-studio/core';
import { tempDir } from '../testing/tempDir.ts';
import { importCommand } from './commands/import.ts';

// Fields the studio does not edit but Triton reads: an import must carry each of them over unchanged.
const CONFIG = `name: "tagger"
backend: "python"
max_batch_size: 8
version_policy { specific { versions: [ 1, 3 ] } }
input [ { name: "TOKENS" data_type: TYPE_INT32 dims: [ -1 ] allow_ragged_batch: true } ]
output [ { name: "TAGS" data_type: TYPE_INT32 dims: [ -1 ] } ]
batch_input [ { kind: BATCH_ACCUMULATED_ELEMENT_COUNT target_name: "OFFSETS" data_type: TYPE_INT32 source_input: "TOKENS" } ]
batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "TAGS" source_input: "TOKENS" } ]
instance_group [ { count: 2 kind: KIND_CPU rate_limiter { resources [ { name: "R1" global: true count: 4 } ] priority: 2 } } ]
model_metrics { metric_control [ { metric_identifier { family: "nv_inference_request_duration" } histogram_options { buckets: [ 100, 500, 2500 ] } } ] }
dynamic_batching { }
`;

describe('import keeps the Triton fields the studio does not edit', () => {
  it('batch IO, model metrics, version policy and rate limiter re-parse to the same config', async () => {
    const src = tempDir('studio-import-src-');
    mkdirSync(join(src, 'tagger', '1'), { recursive: true });
    mkdirSync(join(src, 'tagger', '3'), { recursive: true });
    writeFileSync(join(src, 'tagger', 'config.pbtxt'), CONFIG);
    for (const v of ['1', '3'])
      writeFileSync(join(src, 'tagger', v, 'model.py'), 'class TritonPythonModel:\n    pass\n');
    const out = join(tempDir('studio-import-out-'), 'studio');
    const lines: string[] = [];
    expect(
      await importCommand([src, '--out', out], {
        out: (l) => lines.push(l),
        err: (l) => lines.push(l),
        defaultRepo: '.',
      }),
    ).toBe(0);
    const before = parsePbtxt(CONFIG);
    const after = parsePbtxt(readFileSync(join(out, 'tagger', 'config.pbtxt'), 'utf8'));
    expect(before.ok && after.ok).toBe(true);
    if (before.ok && after.ok) expect(after.config).toEqual(before.config);
  });
});
