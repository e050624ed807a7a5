import { describe, expect, it } from 'vitest';
import type { PortType } from '../tensor/tensor.ts';
import { checkExpression } from './check.ts';
import { parseExpression } from './parser.ts';
import { closestName, editDistance } from './suggest.ts';

const PORTS: Record<string, PortType> = {
  boxes: { datatype: 'FP32', shape: [-1, 4] },
  scores: { datatype: 'FP32', shape: [-1] },
  flag: { datatype: 'BOOL', shape: [1] },
  count: { datatype: 'INT64', shape: [] },
  texts: { datatype: 'BYTES', shape: [-1] },
  label: { datatype: 'BYTES', shape: [1] },
  any_t: { datatype: null, shape: null },
  vec1: { datatype: 'INT32', shape: [-1, 1] },
  scalar_f: { datatype: 'FP16', shape: [] },
  triple: { datatype: 'FP32', shape: [3] },
};

function check(src: string, ports = PORTS) {
  const r = parseExpression(src);
  if (!r.ok) throw new Error(`${src}: ${r.error.message}`);
  return checkExpression(r.ast, ports);
}

describe('checkExpression: well typed', () => {
  it.each([
    'len(boxes) == 0',
    'max(scores) < 0.5 or len(texts) > 3',
    'boxes.shape[1] == 4 and boxes.shape[-2] >= 0',
    'flag',
    'not flag and count > 2',
    'flag == true',
    'count / 0 > -1',
    'size(texts) == size(label) and label.shape[0] == 1',
    'any_t',
    'any_t + 1 > 0 and any_t == true',
    'any_t.shape[7] == 1 and len(any_t) > 0',
    'vec1 > 0 and scores > 0.5',
    'mean(flag) > 0.5 and sum(flag) >= 1 and all(scores) and any(boxes)',
    '-scalar_f < 1e999',
  ])('%s', (src) => {
    expect(check(src)).toEqual([]);
  });
});

describe('checkExpression: errors', () => {
  it.each([
    ['max(scroes) < 0.5', "unknown port 'scroes'; did you mean 'scores'?", 5, 6],
    ['len(Boxes) == 0', "did you mean 'boxes'?", 5, 5],
    ['zzzzzzzzz > 1', "unknown port 'zzzzzzzzz'; the ports are 'boxes', 'scores'", 1, 9],
    ['len(boxes, scores) == 0', 'len() takes exactly one tensor name (got 2 arguments)', 1, 3],
    ['max() > 0', 'max() takes exactly one tensor name (got 0 arguments)', 1, 3],
    ['max(scores * 2) > 0', 'max() takes a tensor name', 5, 10],
    ['len(count) == 1', "len() of scalar tensor 'count'", 5, 5],
    ['count.shape[0] == 1', "count.shape[0] is out of range: 'count' has rank 0", 13, 1],
    ['boxes.shape[2] == 1', 'has rank 2', 13, 1],
    ['boxes.shape[-3] == 1', 'boxes.shape[-3] is out of range', 13, 2],
    ['max(texts) > 0', "max() cannot read BYTES tensor 'texts'", 5, 5],
    ['any(label)', "any() cannot read BYTES tensor 'label'", 5, 5],
    ['label == 1', "BYTES tensor 'label' can only be used in len(), size() or .shape[i]", 1, 5],
    ['triple > 0.5', "'triple' has shape [3], not one element; reduce it first, e.g. max(triple)", 1, 6],
    ['boxes == 1', "'boxes' has shape [-1, 4], not one element", 1, 5],
    ['flag == 1', "'==' compares a boolean with a number", 6, 2],
    ['len(boxes) != (1 < 2)', "'!=' compares a number with a boolean", 12, 2],
    ['flag < 1', "'<' needs a number, but this is a boolean", 1, 4],
    ['true + 1 > 0', "'+' needs a number, but this is a boolean", 1, 4],
    ['-flag > 0', "unary '-' needs a number, but this is a boolean", 2, 4],
    ['not len(boxes)', "'not' needs a boolean, but this is a number", 5, 10],
    ['flag and count', "'and' needs a boolean, but this is a number", 10, 5],
    ['len(boxes)', 'the condition must be true or false', 1, 10],
    ['len(boxes) + max(scores)', 'the condition must be true or false', 1, 24],
  ])('%s', (src, message, column, length) => {
    const errors = check(src);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(message);
    expect([errors[0]!.column, errors[0]!.length]).toEqual([column, length]);
  });

  it('reports each independent mistake once, in column order', () => {
    const errors = check('max(texts) > 0 and scroes == 1 or flag == 2');
    expect(errors.map((e) => e.column)).toEqual([5, 20, 40]);
  });

  it('does not resolve port names through Object.prototype', () => {
    for (const n of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(check(`len(${n}) == 0`)[0]?.message).toContain(`unknown port '${n}'`);
    }
  });

  it('says when a condition has no ports at all', () => {
    expect(check('len(x) == 0', {})[0]?.message).toBe("unknown port 'x'; this condition has no ports");
  });

  it('treats a variable dimension as possibly one element but not a zero dimension', () => {
    expect(check('v > 0', { v: { datatype: 'FP32', shape: [-1, 1] } })).toEqual([]);
    expect(check('v > 0', { v: { datatype: 'FP32', shape: [-1, 0] } })).toHaveLength(1);
  });
});

describe('closestName', () => {
  it.each([
    ['scroes', ['boxes', 'scores'], 'scores'],
    ['BOXES', ['boxes'], 'boxes'],
    ['imag', ['image', 'images'], 'image'],
    ['xyz', ['boxes', 'scores'], undefined],
    ['a', [], undefined],
  ] as const)('%s → %s', (name, candidates, expected) => {
    expect(closestName(name, candidates)).toBe(expected);
  });

  it('computes the edit distance', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
