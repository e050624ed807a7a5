import { IMPORT_VIEW, layoutPositions, type GraphDoc, type XY } from '@ensemble-studio/core';
import { FIT_PADDING_PX } from './viewport.ts';
import type { Size } from '../store/types.ts';

/** The canvas on screen less the fit's padding: the view the layout fills (a 1440×900 editor's when not mounted). */
export function canvasView(): Size {
  const r = document.querySelector('.react-flow')?.getBoundingClientRect();
  return r && r.width > 0 && r.height > 0
    ? { width: r.width - 2 * FIT_PADDING_PX, height: r.height - 2 * FIT_PADDING_PX }
    : IMPORT_VIEW;
}

/**
 * Core's layered layout (the one the importer uses) over the sizes React Flow measured, wrapped to fill the canvas.
 * Returns top-left positions for `moveNodes`; one call = one undo step.
 * @example actions.moveNodes(autoLayout(graph, measured, canvasView()))
 */
export function autoLayout(
  graph: Pick<GraphDoc, 'nodes' | 'edges'>,
  measured: Readonly<Record<string, Size>>,
  view: Size,
): Record<string, XY> {
  return layoutPositions(graph, { sizes: measured, view });
}
