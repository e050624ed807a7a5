import type { Catalogue, GraphDoc, Diagnostic } from '@ensemble-studio/core';

/** A Triton model repository opened from disk. Built by `loadRepository(dir)`. */
export interface Repository {
  /** Absolute path of the repository root. */
  dir: string;
  catalogue: Catalogue;
  /** Graphs saved in the repository (`<ensemble>/studio.json`), plus ensembles imported from their config. */
  graphs: Record<string, GraphDoc>;
  /** Absolute path of a model's file for a version (default: latest), e.g. `<dir>/det/1/model.onnx`. */
  modelFile(model: string, version?: number): string | undefined;
  /** Problems found while loading (unreadable configs, missing files): the rest still loads. */
  problems: Diagnostic[];
}
