// What JSON text costs to parse depends on its shape, not only its size: JSON.parse of a megabyte of numbers takes
// a few ms, of a megabyte of `[[[[…` or `[{},{},…` some tens of times more (every `[` and `{` is an object
// to allocate). Counting them with indexOf is cheap when there are few, and stops once there are too many.

/** JSON objects and arrays that cost about as much to parse as this many bytes of numbers (measured: 15–25). */
export const CONTAINER_COST_BYTES = 16;

/**
 * How many `[` and `{` bytes `text` holds (inside strings too), counted no further than `atMost + 1`.
 * @example openedContainers(Buffer.from('{"a":[1,2]}'), 100) // 2
 */
export function openedContainers(text: Uint8Array, atMost: number): number {
  const b = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  let n = 0;
  for (const bracket of [0x5b, 0x7b]) {
    for (let at = b.indexOf(bracket); at !== -1; at = b.indexOf(bracket, at + 1)) if (++n > atMost) return n;
  }
  return n;
}
