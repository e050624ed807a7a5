// Triton configs → catalogue entries and graphs (PRODUCT §7 import), and the auto-layout.
export { catalogueModelFromConfig, parseStudioMarker, type StudioMarker } from './catalogueModel.ts';
export { graphFromEnsemble, type ImportResult, type ImportOptions } from './graphFromEnsemble.ts';
export {
  layoutGraph,
  layoutPositions,
  LAYOUT_COLUMN_PX,
  LAYOUT_GAP,
  LAYOUT_NODE_WIDTH,
  IMPORT_VIEW,
  type LayoutOptions,
  type LayoutSize,
} from './layout.ts';
