// Triton configs → catalogue entries and graphs (PRODUCT §7 import), and the auto-layout.
export { catalogueModelFromConfig, parseStudioMarker, type StudioMarker } from './catalogueModel.ts';
export { graphFromEnsemble, type ImportResult, type ImportOptions } from './graphFromEnsemble.ts';
export { layoutGraph, LAYOUT_COLUMN_PX, LAYOUT_ROW_PX } from './layout.ts';
