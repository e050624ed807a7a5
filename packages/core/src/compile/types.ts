import type { Diagnostic } from '../validate/diagnostic.ts';

/** One file of a compiled Triton model repository. Exactly one of text / copyFrom / dir. */
export interface RepoFile {
  /** Repository-relative POSIX path, e.g. `ocr/config.pbtxt`, `ocr/1/.gitkeep`. */
  path: string;
  text?: string;
  /** Repository-relative path of a file to copy from the source repository (e.g. an ONNX model). */
  copyFrom?: string;
}

export interface CompileResult {
  ok: boolean;
  files: RepoFile[];
  diagnostics: Diagnostic[];
}
