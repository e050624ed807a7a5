// The repository on disk: open, save, delete, export. Everything here goes through safeJoin.
export type { Repository } from './types.ts';
export { loadRepository } from './loadRepository.ts';
export { saveGraph, deleteGraph, GraphNameError, type SaveResult } from './saveGraph.ts';
export { safeJoin, isSafeName, PathError } from './safeJoin.ts';
export { writeRepoFiles, zipRepoFiles } from './repoFiles.ts';
export { writeFileAtomic } from './atomicWrite.ts';
export { readOnnxSignature, configFromOnnx } from './onnxSignature.ts';
