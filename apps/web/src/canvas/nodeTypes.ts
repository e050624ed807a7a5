import type { NodeTypes } from '@xyflow/react';
import { PipelineNode } from '../nodes/PipelineNode.tsx';

/** Module scope so React Flow never sees a new object. */
export const nodeTypes = { pipeline: PipelineNode } satisfies NodeTypes;
