// Preloaded before tsx (`--import` this, then `--import tsx`): counts the names tsx gives functions at run time. Its
// keepNames helper calls Object.defineProperty(fn, 'name', …) each time a named closure is made; modules capture
// Object.defineProperty when they load, so the count sees only what loads after this.
const define = Object.defineProperty;
globalThis.nameDefines = 0;
Object.defineProperty = function defineProperty(target, key, descriptor) {
  if (key === 'name' && typeof target === 'function') globalThis.nameDefines++;
  return define(target, key, descriptor);
};
