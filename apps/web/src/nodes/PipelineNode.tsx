import { memo } from 'react';
import type { NodeProps } from '@xyflow/react';
import type { PipelineFlowNode } from '../canvas/toFlow.ts';
import { useEditor } from '../store/useEditor.ts';
import { NodeFrame } from './NodeFrame.tsx';
import { PortHandle } from './PortHandle.tsx';
import { nodeSubtitle, nodeTitle } from './nodeText.ts';

/** Every graph node kind renders through this one component; ports come from core's `nodePorts`. */
function PipelineNodeImpl({ id, data, selected }: NodeProps<PipelineFlowNode>) {
  const run = useEditor((s) => s.run.nodes[id]); // one node's run state; replaced only when it changes
  const n = data.node;
  return (
    <NodeFrame
      kind={n.kind}
      title={nodeTitle(n)}
      subtitle={nodeSubtitle(n)}
      model={data.model}
      selected={!!selected}
      run={run}
      problems={data.problems}
    >
      <div className="ports-in">
        {data.inputs.map((p) => (
          <PortHandle key={p.name} port={p} type="target" />
        ))}
      </div>
      <div className="ports-out">
        {data.outputs.map((p) => (
          <PortHandle key={p.name} port={p} type="source" />
        ))}
      </div>
    </NodeFrame>
  );
}

export const PipelineNode = memo(PipelineNodeImpl);
