import type { DeepReadonly } from '../graph/readonly.ts';

/**
 * Freezes `value` and everything reachable from it, and returns it: a test hands frozen documents to
 * the code under test, so any write to them throws (ES modules run in strict mode) instead of going
 * unnoticed.
 * @example const graph = deepFreeze(graphFixture().input('A', 'FP32', [-1]).doc()); validateGraph(graph, catalogue)
 */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  const todo: unknown[] = [value];
  while (todo.length > 0) {
    const v = todo.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    // Typed arrays with elements cannot be frozen; tensors are not part of documents.
    if (ArrayBuffer.isView(v)) continue;
    Object.freeze(v);
    for (const key of Reflect.ownKeys(v)) todo.push((v as Record<PropertyKey, unknown>)[key]);
  }
  return value as DeepReadonly<T>;
}
