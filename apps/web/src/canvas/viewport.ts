import { getNodesBounds, type ReactFlowInstance, type Viewport } from '@xyflow/react';
import type { PipelineFlowNode } from './toFlow.ts';

/**
 * The smallest zoom a graph opens at: node text is 12 px and titles 14 px, so at 0.8 they are 9.6 px and 11.2 px on
 * screen. A graph too large to fit above it opens at this zoom at its top-left corner (the minimap shows the rest).
 */
const LEGIBLE_ZOOM = 0.8;
/** Below this zoom nodes drop their port types and subtitles (they would be unreadable). */
export const DETAIL_ZOOM = 0.55;
/** Below this zoom (titles under 5 px) nodes are drawn as plain boxes in their kind's colour, and edges unlabelled. */
export const OUTLINE_ZOOM = 0.35;
/** The closest a graph is framed: small graphs are not blown up past this. */
export const MAX_FIT_ZOOM = 1.2;
/** Space the fit leaves around the graph, in screen pixels. */
export const FIT_PADDING_PX = 28;

/**
 * Frames the graph: the whole of it when that keeps text legible (never above 1.2), else its top-left corner at
 * `LEGIBLE_ZOOM`, where reading starts. Returns the viewport it moves to (null when there is nothing to frame).
 * @example fitLegible(reactFlow, 200)
 */
export function fitLegible(rf: ReactFlowInstance<PipelineFlowNode>, duration = 0): Viewport | null {
  const nodes = rf.getNodes();
  const el = document.querySelector('.react-flow')?.getBoundingClientRect();
  if (nodes.length === 0 || !el || el.width === 0) return null;
  const b = getNodesBounds(nodes);
  const fit = Math.min(
    (el.width - 2 * FIT_PADDING_PX) / Math.max(b.width, 1),
    (el.height - 2 * FIT_PADDING_PX) / Math.max(b.height, 1),
    MAX_FIT_ZOOM,
  );
  if (fit >= LEGIBLE_ZOOM) {
    const whole = {
      zoom: fit,
      x: (el.width - b.width * fit) / 2 - b.x * fit,
      y: (el.height - b.height * fit) / 2 - b.y * fit,
    };
    void rf.setViewport(whole, { duration });
    return whole;
  }
  const zoom = LEGIBLE_ZOOM;
  // Centred along an axis that fits; from the top-left along one that does not.
  const x =
    b.width * zoom <= el.width - 2 * FIT_PADDING_PX
      ? (el.width - b.width * zoom) / 2 - b.x * zoom
      : FIT_PADDING_PX - b.x * zoom;
  const y =
    b.height * zoom <= el.height - 2 * FIT_PADDING_PX
      ? (el.height - b.height * zoom) / 2 - b.y * zoom
      : FIT_PADDING_PX - b.y * zoom;
  void rf.setViewport({ zoom, x, y }, { duration });
  return { zoom, x, y };
}
