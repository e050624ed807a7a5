// Triton configs → catalogue entries and graphs (`studio import`), and the auto-layout.
export { catalogueModelFromConfig } from './catalogueModel.ts';
export { graphFromEnsemble } from './graphFromEnsemble.ts';
export { layoutGraph, layoutPositions, LAYOUT_COLUMN_PX, IMPORT_VIEW } from './layout.ts';
