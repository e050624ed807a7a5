import { describe, expect, it } from 'vitest';
import { tensorFromJson, type Tensor } from '../tensor/tensor.ts';
import type { Expr } from './ast.ts';
import { evaluateExpression } from './evaluate.ts';
import { parseExpression } from './parser.ts';
import { bf16ToNumber, fp16ToNumber, tensorNumbers } from './values.ts';

const T: Record<string, Tensor> = {
  boxes: tensorFromJson('FP32', [2, 4], [0, 0, 1, 1, 0.5, 0.5, 2, 2]),
  empty: tensorFromJson('FP32', [0, 4], []),
  scores: tensorFromJson('FP32', [3], [0.25, 0.75, -1]),
  flag: tensorFromJson('BOOL', [1], [true]),
  off: tensorFromJson('BOOL', [1, 1], [false]),
  mask: tensorFromJson('BOOL', [3], [true, false, true]),
  big: { datatype: 'INT64', shape: [2], data: new BigInt64Array([2n ** 53n + 1n, -3n]) },
  ubig: { datatype: 'UINT64', shape: [], data: new BigUint64Array([2n ** 64n - 1n]) },
  half: { datatype: 'FP16', shape: [2], data: new Uint16Array([0x3c00, 0xc000]) }, // 1, -2
  bhalf: { datatype: 'BF16', shape: [1], data: new Uint16Array([0x3fc0]) }, // 1.5
  texts: tensorFromJson('BYTES', [2], ['a', 'bc']),
  count: tensorFromJson('INT32', [], [7]),
  nan: tensorFromJson('FP64', [2], [1, NaN]),
};

function parsed(src: string): Expr {
  const r = parseExpression(src);
  if (!r.ok) throw new Error(`${src}: ${r.error.message}`);
  return r.ast;
}

function run(src: string, tensors = T): boolean | number {
  return evaluateExpression(parsed(src), tensors);
}

describe('evaluateExpression: values', () => {
  it.each<[string, boolean | number]>([
    ['len(boxes)', 2],
    ['len(empty) == 0', true],
    ['boxes.shape[1] + boxes.shape[-1]', 8],
    ['size(boxes) + size(empty) + size(texts)', 10],
    ['len(texts) == 2 and texts.shape[0] == 2', true],
    ['max(scores)', 0.75],
    ['min(scores)', -1],
    ['sum(scores)', 0],
    ['mean(boxes)', 0.875],
    ['max(empty)', -Infinity],
    ['min(empty)', Infinity],
    ['sum(empty)', 0],
    ['any(mask) and not all(mask)', true],
    ['any(empty) or not all(empty)', false],
    ['sum(mask) == 2 and max(mask) == 1', true],
    ['flag and not off', true],
    ['count * 2 - 4 / 2', 12],
    ['-count', -7],
    ['1 - 2 - 3', -4],
    ['2 * 3 + 4 * 5', 26],
    ['big.shape[0] == 2 and max(big) == 9007199254740992', true],
    ['ubig', 18446744073709551616],
    ['sum(half) == -1 and min(half) == -2', true],
    ['bhalf', 1.5],
    ['1 / 0', Infinity],
    ['-1 / 0', -Infinity],
    ['1 / -0', -Infinity],
    ['max(nan) != max(nan)', true],
    ['mean(nan) > 0 or mean(nan) <= 0', false],
    ['all(nan)', true],
    ['true == false', false],
    ['true != false', true],
    ['1e999 > 1e308', true],
    ['0.1 + 0.2 == 0.3', false],
  ])('%s = %s', (src, expected) => {
    expect(run(src)).toBe(expected);
  });

  it('gives NaN for the mean of an empty tensor', () => {
    expect(run('mean(empty)')).toBeNaN();
  });

  it('sums left to right in float64', () => {
    const t = { x: tensorFromJson('FP64', [3], [1e16, 1, 1]) };
    expect(run('sum(x)', t)).toBe(1e16 + 1 + 1);
  });
});

describe('evaluateExpression: short-circuit', () => {
  it('does not evaluate the right side of a decided and/or', () => {
    expect(run('len(empty) > 0 and missing > 0')).toBe(false);
    expect(run('len(empty) == 0 or missing > 0')).toBe(true);
    expect(() => run('len(empty) == 0 and missing > 0')).toThrow("no tensor for port 'missing'");
  });
});

describe('evaluateExpression: runtime errors', () => {
  it.each([
    ['missing > 0', "no tensor for port 'missing'"],
    ['len(count) > 0', "len() of scalar tensor 'count'"],
    ['boxes.shape[2] > 0', "boxes.shape[2] is out of range: 'boxes' has rank 2"],
    ['boxes.shape[-3] > 0', 'out of range'],
    ['scores > 0', "'scores' has shape [3], not one element"],
    ['texts == 1', "BYTES tensor 'texts' has no value"],
    ['max(texts) > 1', "max() cannot read BYTES tensor 'texts'"],
    ['flag == 1', "'==' cannot compare a boolean with a number"],
    ['flag < 1', "'<' needs numbers"],
    ['flag + 1 > 0', "'+' needs numbers"],
    ['not count', "'not' needs true/false"],
    ['count and flag', "'and' needs true/false"],
    ['len(boxes, scores) > 0', 'len() takes exactly one tensor name'],
    ['max(count + 1) > 0', 'max() takes exactly one tensor name'],
    ['len(constructor) > 0', "no tensor for port 'constructor'"],
    ['len(__proto__) > 0', "no tensor for port '__proto__'"],
  ])('%s', (src, message) => {
    expect(() => run(src)).toThrow(message);
  });

  it('rejects a tensor whose data does not fill its shape', () => {
    const bad = { x: { datatype: 'FP32' as const, shape: [3], data: new Float32Array(2) } };
    expect(() => run('size(x) > 0', bad)).toThrow("tensor 'x' has 2 elements but shape [3]");
  });
});

describe('tensor element decoding', () => {
  it.each([
    [0x0000, 0],
    [0x3c00, 1],
    [0xc000, -2],
    [0x7bff, 65504],
    [0x0001, 2 ** -24],
    [0x03ff, 1023 * 2 ** -24],
    [0x7c00, Infinity],
    [0xfc00, -Infinity],
    [0x3555, 0.333251953125],
  ])('fp16 %i', (bits, value) => {
    expect(fp16ToNumber(bits)).toBe(value);
  });

  it('decodes fp16 NaN and negative zero', () => {
    expect(fp16ToNumber(0x7e00)).toBeNaN();
    expect(Object.is(fp16ToNumber(0x8000), -0)).toBe(true);
  });

  it.each([
    [0x3f80, 1],
    [0xc040, -3],
    [0x7f80, Infinity],
    [0x0001, 2 ** -133],
  ])('bf16 %i', (bits, value) => {
    expect(bf16ToNumber(bits)).toBe(value);
  });

  it('reads BOOL as 0/1 and 64-bit integers rounded to the nearest double', () => {
    expect(tensorNumbers({ datatype: 'BOOL', shape: [2], data: new Uint8Array([0, 5]) })).toEqual([0, 1]);
    expect(tensorNumbers(T.big!)).toEqual([2 ** 53, -3]);
    expect(() => tensorNumbers(T.texts!)).toThrow('BYTES');
  });
});
