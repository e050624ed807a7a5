import { describe, expect, it } from 'vitest';
import { OrderedReplies } from './orderedReplies.ts';

function later<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: Error) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('OrderedReplies (preserve_ordering)', () => {
  it('gives each reply after every reply tracked before it, errors included', async () => {
    const ordered = new OrderedReplies();
    const [a, b, c] = [later<string>(), later<string>(), later<string>()];
    const given: string[] = [];
    const note = (p: Promise<string>, name: string) =>
      p.then(
        () => given.push(name),
        () => given.push(`${name}!`),
      );
    const all = Promise.all([
      note(ordered.track(a.promise), 'a'),
      note(ordered.track(b.promise), 'b'),
      note(ordered.track(c.promise), 'c'),
    ]);
    c.resolve('c');
    b.reject(new Error('b failed'));
    await new Promise((r) => setImmediate(r));
    expect(given).toEqual([]); // a, the first, has not replied
    a.resolve('a');
    await all;
    expect(given).toEqual(['a', 'b!', 'c']);
  });

  it('passes each reply through unchanged', async () => {
    const ordered = new OrderedReplies();
    await expect(ordered.track(Promise.resolve(7))).resolves.toBe(7);
    await expect(ordered.track(Promise.reject(new Error('no')))).rejects.toThrow('no');
    await expect(ordered.track(Promise.resolve(8))).resolves.toBe(8);
  });
});
