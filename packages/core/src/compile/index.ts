// The compiler (PRODUCT §3, §5, §7): graph → Triton model repository file map, incl. generated Python.
export { compileGraph } from './compileGraph.ts';
export { compileNodePreview } from './preview.ts';
