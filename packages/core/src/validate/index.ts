// Graph validation (everything Triton would refuse, as diagnostics with a fix) and the editor's drop check. `Diagnostic` itself is exported from diagnostic.ts.
export { validateGraph } from './validateGraph.ts';
export { canConnect } from './canConnect.ts';
export { propagateTypes, portKey, formatShape, type PortType } from './propagate.ts';
export { isValidTritonName } from './names.ts';
