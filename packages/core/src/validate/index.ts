// Graph validation (PRODUCT §6) and the editor's drop check. `Diagnostic` itself is exported from diagnostic.ts.
export { validateGraph, GRAPH_RULES } from './validateGraph.ts';
export { canConnect, type Connection, type CanConnectResult } from './canConnect.ts';
export {
  propagateTypes,
  portKey,
  dtypesCompatible,
  shapesCompatible,
  formatShape,
  type PortType,
} from './propagate.ts';
export { tritonNameProblem, isValidTritonName, isPythonIdentifier, MAX_NAME_LENGTH } from './names.ts';
