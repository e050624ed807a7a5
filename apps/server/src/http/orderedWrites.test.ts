import { describe, expect, it } from 'vitest';
import { OrderedWrites } from './orderedWrites.ts';

describe('OrderedWrites', () => {
  it('writes in the order chunks were added, however late each is ready; a failure stops the rest', async () => {
    const written: string[] = [];
    const w = new OrderedWrites<Uint8Array>((b) => void written.push(Buffer.from(b).toString()));
    const later = (text: string, ms: number) =>
      new Promise<Uint8Array>((r) => setTimeout(() => r(Buffer.from(text)), ms));
    w.add(Buffer.from('a'));
    w.add(later('b', 30));
    w.add(Buffer.from('c'));
    w.add(later('d', 1));
    expect(await w.settled()).toBeUndefined();
    expect(written).toEqual(['a', 'b', 'c', 'd']);
    w.add(Promise.reject(new Error('the worker stopped')));
    w.add(Buffer.from('e'));
    expect(((await w.settled()) as Error).message).toBe('the worker stopped');
    expect(written).toEqual(['a', 'b', 'c', 'd']);
  });
});
