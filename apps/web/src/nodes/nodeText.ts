import { formatShape, opDef } from '@ensemble-studio/core';
import type { GraphNode } from '@ensemble-studio/core';

/** The title a node shows: its label, else the tensor/model/op name. */
export function nodeTitle(n: GraphNode): string {
  if (n.label) return n.label;
  switch (n.kind) {
    case 'input':
    case 'output':
      return n.params.name;
    case 'model':
      return n.params.model || 'model';
    case 'op':
      return opDef(n.params.op)?.title ?? n.params.op;
    default:
      return n.id;
  }
}

/** One line under the title: what the node is set to (router mode, condition strategy, …); '' when the title says it all. */
export function nodeSubtitle(n: GraphNode): string {
  switch (n.kind) {
    case 'input':
      return `${n.params.datatype} ${formatShape(n.params.dims)}${n.params.optional ? ' · optional' : ''}`;
    case 'output':
      return `${n.params.datatype} ${formatShape(n.params.dims)}`;
    case 'model':
      return n.label && n.label !== n.params.model ? n.params.model : '';
    case 'op':
      return n.params.op;
    case 'router':
      return `${n.params.mode} × ${n.params.count}`;
    case 'condition':
      return `${n.params.strategy} · exit when ${n.params.expression}`;
  }
}
