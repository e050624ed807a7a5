/**
 * `fn`, callable any number of times but run on the first call only. The returned function is made by a call rather
 * than named where it is written, so tsx (keepNames) defines no `name` on it: it is made once per batch.
 * @example const free = callOnce(() => pool.release(i)); free(); free(); // released once
 */
export function callOnce(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
