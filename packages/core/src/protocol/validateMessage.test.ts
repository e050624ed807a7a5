import { describe, expect, it } from 'vitest';
import { checkWireTensor, validateClientMessage } from './validateMessage.ts';

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

describe('checkWireTensor', () => {
  it.each([
    [{ ...tensor, datatype: 'FLOAT' }, /unknown datatype/],
    [{ ...tensor, shape: [-1] }, /non-negative/],
    [{ ...tensor, shape: [1.5] }, /non-negative/],
    [{ ...tensor, data: [1] }, /1 elements but shape \[2\] needs 2/],
    [{ ...tensor, data: [1, 'x'] }, /element 1 is not a valid FP32/],
    [{ datatype: 'BYTES', shape: [1], data: [3] }, /not a valid BYTES/],
    [{ datatype: 'BOOL', shape: [1], data: [2] }, /not a valid BOOL/],
    [{ datatype: 'FP32', shape: [1] }, /exactly one of data or binary/],
    [{ datatype: 'FP32', shape: [1], data: [1], binary: 0 }, /exactly one of data or binary/],
    [{ datatype: 'FP32', shape: [1], binary: -1 }, /frame index/],
  ])('rejects %j', (t, err) => {
    expect(checkWireTensor('x', t)).toMatch(err);
  });

  it('names the element limit and its value', () => {
    expect(
      checkWireTensor('x', { datatype: 'FP32', shape: [1000, 1000], binary: 0 }, { maxTensorElements: 1000 }),
    ).toMatch(/1000000 elements, over the limit maxTensorElements=1000/);
  });

  it('accepts BOOL as booleans or 0/1', () => {
    expect(checkWireTensor('x', { datatype: 'BOOL', shape: [3], data: [true, 0, 1] })).toBeUndefined();
  });
});
