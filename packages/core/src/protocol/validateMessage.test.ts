import { describe, expect, it } from 'vitest';
import { validateClientMessage } from './validateMessage.ts';

const tensor = { datatype: 'FP32', shape: [2], data: [1, 2] };

describe('validateClientMessage', () => {
  it.each([
    { type: 'run.start', requestId: 'r1', graph: 'ocr', inputs: { x: tensor } },
    { type: 'run.start', requestId: 'r1', graph: { name: 'g', nodes: [], edges: [] }, inputs: {}, timeoutMs: 100 },
    { type: 'run.start', requestId: 'r1', graph: 'g', inputs: { x: { datatype: 'UINT8', shape: [4, 4], binary: 0 } } },
    { type: 'run.cancel', runId: 'run-1' },
    { type: 'stream.open', streamId: 's', graph: 'vad-stream', sequenceId: 7 },
    { type: 'stream.append', streamId: 's', inputs: { t: { datatype: 'BYTES', shape: [1], data: ['a'] } }, end: true },
    { type: 'stream.end', streamId: 's' },
    { type: 'ping', at: 5 },
  ])('accepts $type', (msg) => {
    expect(validateClientMessage(msg)).toEqual({ ok: true, message: msg });
  });

  it.each([
    [null, /JSON object/],
    [[1], /JSON object/],
    [{}, /no "type"/],
    [{ type: 'rm -rf' }, /unknown message type "rm -rf"/],
    [{ type: 'run.start', graph: 'g', inputs: {} }, /requestId/],
    [{ type: 'run.start', requestId: 'r', graph: 42, inputs: {} }, /graph must be/],
    [{ type: 'run.start', requestId: 'r', graph: 'g', inputs: [] }, /inputs must be an object/],
    [{ type: 'run.start', requestId: 'r', graph: 'g', inputs: {}, timeoutMs: -1 }, /timeoutMs/],
    [{ type: 'stream.open', streamId: 's', graph: 'g', sequenceId: { a: 1 } }, /sequenceId/],
    // Negative, or past 2^53 - 1 where JSON numbers round (2^64 and 2^64 + 1 would be one sequence).
    [{ type: 'stream.open', streamId: 's', graph: 'g', sequenceId: -1 }, /sequenceId must be an integer from 0 to/],
    [
      { type: 'stream.open', streamId: 's', graph: 'g', sequenceId: 2 ** 64 },
      /sequenceId must be an integer from 0 to/,
    ],
    [{ type: 'stream.append', streamId: 's', inputs: {}, end: 'yes' }, /end must be a boolean/],
    [{ type: 'ping' }, /at must be a number/],
  ])('rejects %j', (msg, err) => {
    const r = validateClientMessage(msg);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(err);
  });

  it('returns the request id as ref so the client can match the error', () => {
    const r = validateClientMessage({
      type: 'run.start',
      requestId: 'abc',
      graph: 'g',
      inputs: { x: { ...tensor, data: [1] } },
    });
    expect(r).toMatchObject({ ok: false, ref: 'abc' });
  });
});

describe('validateClientMessage on tensors', () => {
  const start = (x: unknown, limits = {}) =>
    validateClientMessage({ type: 'run.start', requestId: 'r', graph: 'g', inputs: { x } }, limits);
  const error = (x: unknown, limits = {}) => {
    const r = start(x, limits);
    return r.ok ? undefined : r.error;
  };

  it.each([
    [{ ...tensor, datatype: 'FLOAT' }, /inputs\.x\.datatype must be one of BOOL, UINT8, .* \(got "FLOAT"\)/],
    [{ ...tensor, shape: [-1] }, /inputs\.x\.shape\[0\] must be a non-negative integer/],
    [{ ...tensor, shape: [1.5] }, /non-negative/],
    [{ ...tensor, data: [1] }, /inputs\.x\.data has 1 elements but shape \[2\] needs 2/],
    [{ ...tensor, data: [1, 'x'] }, /inputs\.x\.data element 1 is not a valid FP32 value: not a finite number/],
    [{ datatype: 'BYTES', shape: [1], data: [3] }, /not a valid BYTES/],
    [{ datatype: 'BOOL', shape: [1], data: [2] }, /not a valid BOOL/],
    [
      { datatype: 'UINT8', shape: [1], data: [300] },
      /element 0 is not a valid UINT8 value: outside UINT8's range 0..255/,
    ],
    [{ datatype: 'FP32', shape: [1] }, /inputs\.x needs exactly one of data or binary/],
    [{ datatype: 'FP32', shape: [1], data: [1], binary: 0 }, /exactly one of data or binary/],
    [{ datatype: 'FP32', shape: [1], binary: -1 }, /inputs\.x\.binary must be a frame index/],
    [{ shape: [1], data: [1] }, /inputs\.x\.datatype must be one of BOOL, .* \(got undefined\)/],
    [[1, 2], /inputs\.x must be an object/],
  ])('rejects %j', (t, err) => {
    expect(error(t)).toMatch(err);
  });

  it('names the element limit and its value', () => {
    expect(error({ datatype: 'FP32', shape: [1000, 1000], binary: 0 }, { maxTensorElements: 1000 })).toBe(
      'run.start: inputs.x has 1000000 elements, over the limit maxTensorElements=1000',
    );
  });

  it('accepts BOOL as booleans or 0/1', () => {
    expect(start({ datatype: 'BOOL', shape: [3], data: [true, 0, 1] }).ok).toBe(true);
  });

  it('keeps an input named __proto__ as an input, not as the prototype of the inputs', () => {
    const r = validateClientMessage(
      JSON.parse(
        '{"type":"run.start","requestId":"r","graph":"g","inputs":{"__proto__":{"datatype":"FP32","shape":[1],"data":[1]}}}',
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok || r.message.type !== 'run.start') return;
    expect(Object.keys(r.message.inputs)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(r.message.inputs)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(r.message.inputs, '__proto__')?.value).toEqual({
      datatype: 'FP32',
      shape: [1],
      data: [1],
    });
  });

  it('drops fields the protocol does not have and passes a graph document through as sent', () => {
    const graph = { name: 'g', nodes: [], edges: [], version: 1, maxBatchSize: 0 };
    const r = validateClientMessage({ type: 'run.start', requestId: 'r', graph, inputs: {}, admin: true });
    expect(r).toEqual({ ok: true, message: { type: 'run.start', requestId: 'r', graph, inputs: {} } });
    expect(r.ok && r.message.type === 'run.start' && r.message.graph).toBe(graph);
  });
});
