import { memo } from 'react';
import { BaseEdge, getBezierPath, getSmoothStepPath, type EdgeProps } from '@xyflow/react';
import { useEditor } from '../store/useEditor.ts';
import { selectEdgeLanes } from './lanes.ts';
import type { TensorFlowEdge } from './toFlow.ts';

/**
 * A tensor edge: a curve from output to input, or, when the input lies left of the output (the next band of a
 * wrapped layout), a right-angled path along the free lane between the bands instead of a diagonal across them.
 */
function TensorEdgeImpl(p: EdgeProps<TensorFlowEdge>) {
  const lane = useEditor((s) => selectEdgeLanes(s).get(p.id));
  const [path, labelX, labelY] =
    lane === undefined || p.targetX >= p.sourceX
      ? getBezierPath(p)
      : getSmoothStepPath({ ...p, centerY: lane, borderRadius: 8, offset: 16 });
  return (
    <BaseEdge
      id={p.id}
      path={path}
      markerEnd={p.markerEnd}
      style={p.style}
      interactionWidth={p.interactionWidth}
      label={p.label}
      labelX={labelX}
      labelY={labelY}
      labelStyle={p.labelStyle}
      labelShowBg={p.labelShowBg}
      labelBgStyle={p.labelBgStyle}
      labelBgPadding={p.labelBgPadding}
      labelBgBorderRadius={p.labelBgBorderRadius}
    />
  );
}

export const TensorEdge = memo(TensorEdgeImpl);
