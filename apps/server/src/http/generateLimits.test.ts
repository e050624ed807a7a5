import { describe, expect, it } from 'vitest';
import { checkElements } from './kserveTensors.ts';
import { call } from '../testing/testServer.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile({ limits: { maxTensorElements: 1000 } });

const row = (v: unknown) => Array.from({ length: 64 }, (_, i) => (i === 3 ? v : 0.5));

describe('/generate applies the limits and element checks of /infer', () => {
  it('refuses a tensor over maxTensorElements, naming the limit', async () => {
    const r = await call(`${s.url}/v2/models/extractor/generate`, 'POST', {
      x: Array.from({ length: 20 }, () => row(0)),
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("input 'x' has 1280 elements, over the limit maxTensorElements=1000");
  });

  it.each([
    ['"abc"', 'abc'],
    ['"Infinity"', 'Infinity'],
    ['{}', {}],
    ['null', null],
    ['true', true],
    ['[[]] (ragged)', [[]]],
  ])('refuses %s as an FP32 element', async (_what, value) => {
    const r = await call(`${s.url}/v2/models/extractor/generate`, 'POST', { x: [row(value)] });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/input 'x'/);
  });

  it("refuses a parameter that is not a string, a number or a boolean, with Triton's words, on both routes", async () => {
    const message = "parameter 'p' has invalid type. It should be either 'int', 'bool', or 'string'.";
    const generate = await call(`${s.url}/v2/models/extractor/generate`, 'POST', {
      parameters: { p: { a: 1 } },
      x: [row(0.25)],
    });
    expect([generate.status, generate.json.error]).toEqual([400, message]);
    const inputs = [{ name: 'x', datatype: 'FP32', shape: [1, 64], data: row(0.25) }];
    for (const p of [{ a: 1 }, [1], null]) {
      const r = await call(`${s.url}/v2/models/extractor/infer`, 'POST', { parameters: { p }, inputs });
      expect([r.status, r.json.error], JSON.stringify(p)).toEqual([400, message]);
    }
  });

  it('refuses an id that is not a string, as /infer does (it was dropped from the response)', async () => {
    const r = await call(`${s.url}/v2/models/extractor/generate`, 'POST', { id: 7, x: [row(0.25)] });
    expect([r.status, r.json.error]).toEqual([
      400,
      "Unable to parse 'id': attempt to access JSON non-string as string",
    ]);
    const named = await call(`${s.url}/v2/models/extractor/generate`, 'POST', { id: 'g1', x: [row(0.25)] });
    expect([named.status, named.json.id]).toEqual([200, 'g1']);
  });

  it('still runs a well-formed request', async () => {
    const r = await call(`${s.url}/v2/models/extractor/generate`, 'POST', { x: [row(0.25)] });
    expect(r.status).toBe(200);
    expect(r.json.feat).toHaveLength(256);
  });
});

describe('checkElements (shared by /infer, /generate and WebSocket JSON tensors)', () => {
  it.each([
    ['UINT8', 300, /outside UINT8's range 0\.\.255/],
    ['INT8', -129, /outside INT8's range/],
    ['INT32', 1.5, /not an integer/],
    ['FP32', 3.5e38, /outside FP32's range/],
    ['BOOL', 2, /not a boolean/],
    ['BYTES', 7, /not a string/],
  ] as const)('%s %s is refused', (datatype, value, message) => {
    expect(() => checkElements('t', datatype, [0, value])).toThrow(message);
  });

  it('accepts the edges of each range', () => {
    expect(() => checkElements('t', 'UINT8', [0, 255])).not.toThrow();
    expect(() => checkElements('t', 'INT8', [-128, 127])).not.toThrow();
    expect(() => checkElements('t', 'FP32', [3.4e38, -3.4e38])).not.toThrow();
  });
});
