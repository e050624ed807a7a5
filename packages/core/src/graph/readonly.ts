/**
 * `T` with every property and element readonly, all the way down: the type of a graph document where
 * code only reads it. Documents are shared (the editor's undo history, the engine's per-graph
 * preparation, a stream's repeated runs), so a reader that changed one would change it for everyone.
 * @example function count(graph: DeepReadonly<GraphDoc>) { return graph.nodes.length; }
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;
