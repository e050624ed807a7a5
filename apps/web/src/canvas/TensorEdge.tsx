import { memo } from 'react';
import { BaseEdge, getBezierPath, getSmoothStepPath, type EdgeProps } from '@xyflow/react';
import { LAYOUT_COLUMN_PX, LAYOUT_GAP } from '@ensemble-studio/core';
import { useEditor } from '../store/useEditor.ts';
import { selectEdgeLanes } from './lanes.ts';
import type { TensorFlowEdge } from './toFlow.ts';
import { labelLines, labelBox, stackOffset, LABEL_LINE_PX, LABEL_PAD } from './edgeLabel.ts';

/** The tensor's dtype/shape at a point of its edge, on one line or, where that would cover the nodes, two. */
function TensorLabel(p: { text: string; x: number; y: number; room: number; stack: [number, number] }) {
  const lines = labelLines(p.text, p.room);
  const box = labelBox(lines);
  const x = p.x;
  const y = p.room === Infinity ? p.y : p.y + stackOffset(p.stack, box.height);
  const top = -((lines.length - 1) * LABEL_LINE_PX) / 2;
  return (
    <g className="react-flow__edge-textwrapper" transform={`translate(${x} ${y})`}>
      <rect
        className="react-flow__edge-textbg"
        x={-box.width / 2}
        y={-box.height / 2}
        width={box.width}
        height={box.height}
        rx={3}
        ry={3}
      />
      <text className="react-flow__edge-text" textAnchor="middle" dominantBaseline="central">
        {lines.map((line, i) => (
          <tspan key={i} x={0} y={top + i * LABEL_LINE_PX}>
            {line}
          </tspan>
        ))}
      </text>
    </g>
  );
}

/**
 * A tensor edge: a curve from output to input, or, when the input lies left of the output (the next band of a
 * wrapped layout), a right-angled path along the free lane between the bands instead of a diagonal across them.
 */
function TensorEdgeImpl(p: EdgeProps<TensorFlowEdge>) {
  const lane = useEditor((s) => selectEdgeLanes(s).get(p.id));
  const curved = lane === undefined || p.targetX >= p.sourceX;
  const [path, midX, midY] = curved
    ? getBezierPath(p)
    : getSmoothStepPath({ ...p, centerY: lane, borderRadius: 8, offset: 16 });
  // A curve's label sits in the gap before its target: the middle of a lone short curve; else just before the input
  // it feeds — a long curve passes other columns' nodes (and would hide its label under one), and the labels of
  // several edges into one node stack there in the order of its ports.
  const span = Math.abs(p.targetX - p.sourceX);
  const stack = p.data?.stack ?? [0, 1];
  const atTarget = curved && (span > LAYOUT_COLUMN_PX || stack[1] > 1);
  const gap = Math.min(span, LAYOUT_GAP.column);
  const [labelX, labelY] = atTarget ? [p.targetX - gap / 2, p.targetY] : [midX, midY];
  const room = curved ? gap - 2 * LABEL_PAD.clear : Infinity;
  return (
    <>
      <BaseEdge id={p.id} path={path} markerEnd={p.markerEnd} style={p.style} interactionWidth={p.interactionWidth} />
      {typeof p.label === 'string' && p.label && (
        <TensorLabel text={p.label} x={labelX} y={labelY} room={room} stack={stack} />
      )}
    </>
  );
}

export const TensorEdge = memo(TensorEdgeImpl);
