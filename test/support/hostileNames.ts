// Names every plain JavaScript object answers to. A registry keyed by user text (graphs, models, nodes, inputs) that
// reads them with `obj[name]` finds an inherited value instead of nothing, so the fuzz and stress tests plant them
// wherever a client names something.

/** Keys of Object.prototype (and `prototype`, a key of every function) that clients may use as names. */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'isPrototypeOf',
  '__defineGetter__',
] as const;
