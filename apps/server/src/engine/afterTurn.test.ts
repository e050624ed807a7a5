import { describe, expect, it } from 'vitest';
import { afterTurn } from './afterTurn.ts';

describe('afterTurn', () => {
  it("runs its tasks once the turn is over, in the order asked, and one task's failure stops none of the others", async () => {
    const done: string[] = [];
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      afterTurn(() => done.push('a'));
      afterTurn(() => {
        throw new Error('broken bookkeeping');
      });
      afterTurn(() => done.push('b'));
      await Promise.resolve(); // a microtask later the turn is not over
      expect(done).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(done).toEqual(['a', 'b']);
      afterTurn(() => done.push('c')); // asked again after a flush: flushed again
      await new Promise((resolve) => setImmediate(resolve));
      expect(done).toEqual(['a', 'b', 'c']);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      expect(warnings).toEqual(['engine bookkeeping failed: broken bookkeeping']);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
