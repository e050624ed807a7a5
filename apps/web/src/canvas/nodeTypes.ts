import type { EdgeTypes, NodeTypes } from '@xyflow/react';
import { PipelineNode } from '../nodes/PipelineNode.tsx';
import { TensorEdge } from './TensorEdge.tsx';

/** Module scope so React Flow never sees a new object. */
export const nodeTypes = { pipeline: PipelineNode } satisfies NodeTypes;
export const edgeTypes = { tensor: TensorEdge } satisfies EdgeTypes;
