import { describe, expect, it } from 'vitest';
import { frameLabel, tracebackFrame } from './traceback.ts';

const TB = `Traceback (most recent call last):
  File "/tmp/repo/router/1/model.py", line 40, in execute
    out = helper(x)
  File "/tmp/repo/router/1/model.py", line 12, in helper
    raise ValueError("no boxes")
  File "/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py", line 59, in _wrapfunc
ValueError: no boxes`;

describe('tracebackFrame', () => {
  it("finds the innermost frame in the model's own file, skipping library frames below it", () => {
    expect(tracebackFrame(TB, 'router/1/model.py')).toEqual({ file: '/tmp/repo/router/1/model.py', line: 12 });
    expect(frameLabel(tracebackFrame(TB, 'router/1/model.py')!)).toBe('model.py:12');
  });

  it('falls back to the innermost frame, and to null for a message without frames', () => {
    expect(tracebackFrame(TB, 'other/1/model.py')).toEqual({
      file: '/usr/lib/python3/dist-packages/numpy/core/fromnumeric.py',
      line: 59,
    });
    expect(tracebackFrame(TB)?.line).toBe(59);
    expect(tracebackFrame('ValueError: bad')).toBeNull();
  });

  it('does not take a file whose name merely ends the same way', () => {
    expect(tracebackFrame('  File "/x/my_router/1/model.py", line 3, in f', 'router/1/model.py')).toEqual({
      file: '/x/my_router/1/model.py',
      line: 3,
    });
    expect(
      tracebackFrame(
        '  File "/x/my_router/1/model.py", line 3, in f\n  File "/x/b.py", line 9, in g',
        'router/1/model.py',
      )?.line,
    ).toBe(9);
  });
});
