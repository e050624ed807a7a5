// The compiler (PRODUCT §3, §5, §7): graph → Triton model repository file map, incl. generated Python.
export { compileGraph, exportStrategy, type CompileOptions } from './compileGraph.ts';
export { compileNodePreview } from './preview.ts';
export { generatedModelName, gateTensorNames } from './plan.ts';
export { pyStr, pyValue, pyIdent, tritonSafe } from './pyStr.ts';
export type { ExportStrategy } from './readme.ts';
