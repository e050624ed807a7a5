// The contract between the engine and its built-in ops (registry.ts lists the ops).
import type { OpId, Tensor } from '@ensemble-studio/core';

/** What an op may ask of the engine while it runs. */
export interface OpContext {
  /** Reads a repository-relative text file (e.g. the CTC dictionary); the engine caches it. */
  readText(path: string): string;
}

/**
 * A built-in op in TypeScript: a synchronous, pure function of its inputs (never
 * mutates them). Values missing from `values` take the op's defaults; bad inputs or params throw
 * an Error naming the op and the port or param.
 */
export interface OpImpl {
  id: OpId;
  run(
    inputs: Record<string, Tensor>,
    values: Record<string, number | string | boolean>,
    ctx: OpContext,
  ): Record<string, Tensor>;
}
