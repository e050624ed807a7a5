import { describe, expect, it } from 'vitest';
import { tensorFromBytes, tritonJsonText } from './kserveTensors.ts';
import { testServerPerFile } from '../testing/testServerPerFile.ts';

const s = testServerPerFile();

/** A binary-extension infer request: JSON header + raw FP32 bytes for `x` (+ `trailing` bytes no input claims). */
async function inferBinary(values: Float32Array, trailing = 0): Promise<{ status: number; text: string }> {
  const header = Buffer.from(
    JSON.stringify({
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], parameters: { binary_data_size: values.byteLength } }],
    }),
  );
  const r = await fetch(`${s.url}/v2/models/extractor/infer`, {
    method: 'POST',
    body: Buffer.concat([header, Buffer.from(values.buffer), Buffer.alloc(trailing)]),
    headers: {
      'content-type': 'application/octet-stream',
      'inference-header-content-length': String(header.byteLength),
    },
  });
  return { status: r.status, text: await r.text() };
}

describe('values JSON cannot hold', () => {
  it('NaN outputs come back as NaN, as Triton writes them, not as null', async () => {
    const r = await inferBinary(new Float32Array(64).fill(Number.NaN));
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/"data":\[NaN,NaN/);
    expect(r.text).not.toMatch(/null/);
  });

  it("binary data past every input's binary_data_size is refused with Triton's words", async () => {
    const r = await inferBinary(new Float32Array(64).fill(0.5), 4);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toBe("unexpected additional input data for model 'extractor'");
    expect((await inferBinary(new Float32Array(64).fill(0.5))).status).toBe(200);
  });

  it('tritonJsonText writes NaN and ±Infinity as bare tokens and leaves strings alone', () => {
    expect(tritonJsonText({ data: [1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY] })).toBe(
      '{"data":[1,NaN,Infinity,-Infinity]}',
    );
    expect(tritonJsonText({ data: ['NaN', 2] })).toBe('{"data":["NaN",2]}');
  });

  it('BYTES elements that are not UTF-8 are refused, not turned into U+FFFD', () => {
    const bytes = Buffer.concat([Buffer.from([2, 0, 0, 0]), Buffer.from([0xc3, 0x28])]);
    expect(() => tensorFromBytes('BYTES', [1], bytes, 'text')).toThrow(
      "input 'text' BYTES element 0 is not valid UTF-8",
    );
    const ok = Buffer.concat([Buffer.from([2, 0, 0, 0]), Buffer.from('é')]);
    expect(tensorFromBytes('BYTES', [1], ok, 'text').data).toEqual(['é']);
  });
});

describe('a JSON body that is not UTF-8 (the thirteenth hostile round: an id was answered with U+FFFD)', () => {
  const x = `"x":[${new Array(64).fill(0.5).join(',')}]`;
  const infer = `"inputs":[{"name":"x","datatype":"FP32","shape":[1,64],"data":[${new Array(64).fill(0.5).join(',')}]}]`;
  const withBadByte = (before: string, after: string) =>
    Buffer.concat([Buffer.from(before), Buffer.from([0xff, 0xfe]), Buffer.from(after)]);

  it('is refused on /infer, /generate and /generate_stream, not decoded with replacement characters', async () => {
    for (const [route, rest] of [
      ['infer', infer],
      ['generate', x],
      ['generate_stream', x],
    ] as const) {
      const r = await fetch(`${s.url}/v2/models/extractor/${route}`, {
        method: 'POST',
        body: withBadByte('{"id":"a', `",${rest}}`),
      });
      expect([route, r.status, await r.json()]).toEqual([
        route,
        400,
        { error: 'failed to parse the request JSON buffer: it is not valid UTF-8 (this server keeps strings as text)' },
      ]);
    }
    // The same request in UTF-8 runs.
    const ok = await fetch(`${s.url}/v2/models/extractor/infer`, { method: 'POST', body: `{"id":"aé",${infer}}` });
    expect([ok.status, ((await ok.json()) as { id: string }).id]).toEqual([200, 'aé']);
  });
});
