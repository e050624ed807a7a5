import { describe, expect, it } from 'vitest';
import { IdentAllocator, pyIdent, pyStr, pyValue, tritonSafe } from './pyStr.ts';

const HOSTILE = [
  '',
  'plain',
  'it\'s "quoted"',
  '"""triple""" and \'\'\'triple\'\'\'',
  'back\\slash\\',
  'line\nbreak\r\nand\ttab',
  'nul\0byte',
  'ünïcødé — 漢字 🎉',
  'lone \ud800 surrogate',
  '\u2028\u2029 separators',
  '"); import os; os.system("echo pwned"); ("',
  '\\x41\\u0041\\N{BULLET}',
  '{braces} %s %d',
];

describe('pyStr', () => {
  it('emits ASCII-only literals', () => {
    for (const s of HOSTILE) expect(pyStr(s)).toMatch(/^"[\x20-\x7e]*"$/);
  });

  it('escapes quotes so a string cannot end early', () => {
    expect(pyStr('a"b')).toBe('"a\\"b"');
    expect(pyStr('a\\')).toBe('"a\\\\"');
    expect(pyStr('\n')).toBe('"\\n"');
    expect(pyStr('\0')).toBe('"\\x00"');
  });
});

describe('pyValue', () => {
  it('writes JSON-like values as Python literals', () => {
    expect(pyValue({ a: [1, true, null], 'b"': 'x' })).toBe('{"a": [1, True, None], "b\\"": "x"}');
  });

  it('writes non-finite numbers as float() calls', () => {
    expect(pyValue(Infinity)).toBe('float("inf")');
    expect(pyValue(Number.NaN)).toBe('float("nan")');
  });
});

describe('identifiers and names', () => {
  it('pyIdent makes valid identifiers', () => {
    expect(pyIdent('det-1')).toBe('det_1');
    expect(pyIdent('1x')).toBe('_1x');
    expect(pyIdent('class')).toBe('class_');
    expect(pyIdent('a"b\nc')).toBe('a_b_c');
  });

  it('IdentAllocator keeps distinct keys distinct', () => {
    const ids = new IdentAllocator('op_');
    expect(ids.get('a-b')).toBe('op_a_b');
    expect(ids.get('a_b')).toBe('op_a_b_2');
    expect(ids.get('a-b')).toBe('op_a_b');
  });

  it('tritonSafe keeps only Triton name characters', () => {
    expect(tritonSafe('ocr_r 1/"x"')).toBe('ocr_r_1__x_');
  });
});
