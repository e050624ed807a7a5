import type { Catalogue } from '../catalogue/types.ts';
import type { GraphDoc } from '../graph/types.ts';
import { compileGraph, exportStrategy, safeModelName } from './compileGraph.ts';
import { generatedModelName } from './plan.ts';
import type { RepoFile } from './types.ts';

/**
 * The generated text files (config.pbtxt, model.py) behind one node, for the editor's live preview:
 * a model node's config, a copy router's / condition's / op's generated model, the ensemble (or
 * BLS model) for input and output nodes. A direct router has none.
 * @example compileNodePreview(graph, catalogue, 'det').map((f) => f.path) // ['det/config.pbtxt']
 */
export function compileNodePreview(graph: GraphDoc, catalogue: Catalogue, nodeId: string): RepoFile[] {
  const node = graph.nodes.find((n) => n.id === nodeId);
  if (!node) return [];
  const { files } = compileGraph(graph, catalogue);
  const entryDir = safeModelName(graph.name);
  let dir: string | undefined;
  if (node.kind === 'model') dir = node.params.model;
  else if (node.kind === 'input' || node.kind === 'output') dir = entryDir;
  else if (exportStrategy(graph) === 'bls') dir = entryDir;
  else if (node.kind === 'router' && node.params.mode === 'direct') return [];
  else dir = generatedModelName(entryDir, node.id);
  const wanted = [`${dir}/config.pbtxt`, `${dir}/1/model.py`];
  return wanted.flatMap((p) => files.filter((f) => f.path === p && f.text !== undefined));
}
