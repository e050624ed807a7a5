import type { GenericSchema } from 'valibot';
import { describe, expect, it } from 'vitest';
import { addSubGraph } from '../testing/fixtures.ts';
import { apiCompileRequestSchema, apiGraphRequestSchema, apiImportRequestSchema, readApiBody } from './apiRequests.ts';

describe('readApiBody', () => {
  it('reads a graph by name or as a whole document (passed on as sent, for migrate to read)', () => {
    const doc = addSubGraph();
    expect(readApiBody(apiGraphRequestSchema, { graph: 'ocr', extra: 1 })).toEqual({
      ok: true,
      value: { graph: 'ocr' },
    });
    const r = readApiBody(apiCompileRequestSchema, { graph: doc, nodeId: 'n' });
    expect(r).toEqual({ ok: true, value: { graph: doc, nodeId: 'n' } });
    expect(r.ok && r.value.graph).toBe(doc);
  });

  it.each<[GenericSchema<unknown, unknown>, unknown, string]>([
    [apiGraphRequestSchema, undefined, 'body must be a JSON object {"graph": <name or graph document>}'],
    [apiGraphRequestSchema, [], 'body must be a JSON object {"graph": <name or graph document>}'],
    [apiGraphRequestSchema, {}, 'graph must be a saved graph name or a graph document {name, nodes, edges}'],
    [apiGraphRequestSchema, { graph: 42 }, 'graph must be a saved graph name or a graph document {name, nodes, edges}'],
    [apiGraphRequestSchema, { graph: 'x'.repeat(257) }, 'graph must be a name of 1–256 characters'],
    [apiCompileRequestSchema, { graph: 'g', nodeId: 3 }, 'nodeId must be a string'],
    [
      apiImportRequestSchema,
      { dir: '' },
      'dir must be a repository directory: a non-empty string without NUL characters',
    ],
    [
      apiImportRequestSchema,
      { dir: 'a\0b' },
      'dir must be a repository directory: a non-empty string without NUL characters',
    ],
    [apiImportRequestSchema, null, 'body must be a JSON object {"dir": "<repository directory>"}'],
  ])('names the field and what was expected (%#)', (schema, body, error) => {
    expect(readApiBody(schema, body)).toEqual({ ok: false, error });
  });
});
