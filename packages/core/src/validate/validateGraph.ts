import type { Catalogue } from '../catalogue/types.ts';
import type { GraphDoc } from '../graph/types.ts';
import type { Diagnostic } from './diagnostic.ts';
import { ruleContext, type Rule } from './context.ts';
import { decoupledJoins } from './rules/decoupled.ts';
import { conflictingSettings, decoupledGraph, modelSettings, statefulModels, unknownModels } from './rules/models.ts';
import { nodeParams } from './rules/nodes.ts';
import {
  cycles,
  danglingEdges,
  doublyFedInputs,
  emptyGraph,
  sharedOutputs,
  unconnectedInputs,
  unreachedOutputs,
  unusedTensors,
} from './rules/structure.ts';
import { optionalInputs, tensorNames } from './rules/ensembleTensors.ts';
import { batchSizes, edgeTypes } from './rules/types.ts';

/** Every graph rule, in the order their diagnostics are listed. */
const GRAPH_RULES: readonly Rule[] = [
  emptyGraph,
  cycles,
  danglingEdges,
  doublyFedInputs,
  unconnectedInputs,
  unreachedOutputs,
  unusedTensors,
  sharedOutputs,
  optionalInputs,
  tensorNames,
  edgeTypes,
  batchSizes,
  unknownModels,
  modelSettings,
  conflictingSettings,
  statefulModels,
  decoupledJoins,
  decoupledGraph,
  nodeParams,
];

const RANK = { error: 0, warning: 1, info: 2 } as const;

/**
 * Everything Triton would reject (errors) or that surprises users (warnings/info), as data. Each
 * diagnostic names the node/edge/port and says what to do (`fix`). Errors come first.
 * @example validateGraph(graph, catalogue).filter((d) => d.severity === 'error').map((d) => d.message)
 */
export function validateGraph(graph: GraphDoc, catalogue: Catalogue): Diagnostic[] {
  const ctx = ruleContext(graph, catalogue);
  const all = GRAPH_RULES.flatMap((rule) => rule(ctx));
  return all
    .map((d, i) => ({ d, i }))
    .sort((a, b) => RANK[a.d.severity] - RANK[b.d.severity] || a.i - b.i)
    .map(({ d }) => d);
}
