import { memo } from 'react';
import { Handle, Position } from '@xyflow/react';
import { formatShape } from '@ensemble-studio/core';
import type { PortView } from '../canvas/toFlow.ts';
import { dtypeColor } from './dtypeColors.ts';

/** One tensor port: a handle whose id is the port name, coloured by dtype; its type shows here until an edge's label carries it. */
function PortHandleImpl({ port, type }: { port: PortView; type: 'source' | 'target' }) {
  const color = dtypeColor(port.datatype);
  const tip = `${port.name}: ${port.datatype ?? 'inferred'} ${formatShape(port.shape)}${port.optional ? ' (optional)' : ''}`;
  return (
    <div className={`port port-${type}`} title={tip}>
      <Handle
        id={port.name}
        type={type}
        position={type === 'target' ? Position.Left : Position.Right}
        style={{ background: color, borderColor: color }}
      />
      <span className="port-name">
        {port.name}
        {port.optional ? '?' : ''}
      </span>
      {!port.wired && (
        <span className="port-type" style={{ color }}>
          {port.datatype ?? '·'} {port.shape ? formatShape(port.shape) : ''}
        </span>
      )}
    </div>
  );
}

export const PortHandle = memo(PortHandleImpl);
