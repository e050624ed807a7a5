import { describe, expect, it } from 'vitest';
import { forkTurn } from './forkTurns.ts';

describe('forkTurn', () => {
  it('gives each caller a turn of its own, in order, with other work run between two turns', async () => {
    const order: string[] = [];
    const a = forkTurn().then(() => {
      order.push('a');
      setImmediate(() => order.push('other client'));
    });
    const b = forkTurn().then(() => order.push('b'));
    const c = forkTurn().then(() => order.push('c'));
    await Promise.all([a, b, c]);
    expect(order).toEqual(['a', 'other client', 'b', 'c']);
  });
});
