// The compiler: graph → Triton model repository file map, incl. generated Python.
export { compileGraph } from './compileGraph.ts';
export { compileNodePreview } from './preview.ts';
export { gateTensorNames, generatedModelName } from './plan.ts';
