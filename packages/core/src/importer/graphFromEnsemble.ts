import type { Catalogue } from '../catalogue/types.ts';
import { newGraph } from '../graph/ops.ts';
import type { GraphDoc, GraphEdge, GraphNode } from '../graph/types.ts';
import type { EnsembleStep } from '../pbtxt/modelConfig.ts';
import { migrate } from '../schema/migrate.ts';
import type { Diagnostic } from '../validate/diagnostic.ts';
import { IMPORT_VIEW, layoutGraph } from '../graph/layout.ts';
import { stepNode } from './stepNode.ts';
import { catalogueModel } from '../catalogue/types.ts';

export interface ImportResult {
  graph: GraphDoc;
  diagnostics: Diagnostic[];
}
export interface ImportOptions {
  /** The parsed `<ensemble>/studio.json` sidecar, when the directory has one (required for BLS exports). */
  sidecar?: unknown;
  /**
   * Keep the studio's generated models (routers, gates, ops) as plain model steps instead of turning them
   * back into their node kinds: the graph then runs the exported `model.py` files themselves.
   */
  plainSteps?: boolean;
}

interface Port {
  node: string;
  port: string;
}

/** Mutable state of one rebuild (local to `graphFromEnsemble`). */
class Rebuild {
  readonly nodes: GraphNode[] = [];
  readonly edges: GraphEdge[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly producers = new Map<string, Port>();
  private readonly ids = new Set<string>();

  uniqueId(base: string): string {
    let id = base;
    for (let i = 2; this.ids.has(id); i++) id = `${base}#${i}`;
    this.ids.add(id);
    return id;
  }
  produce(tensor: string, p: Port, where: string): void {
    if (this.producers.has(tensor)) {
      this.diagnostics.push({
        code: 'tensor-two-producers',
        severity: 'error',
        nodeId: p.node,
        message: `ensemble tensor '${tensor}' is written twice (again by ${where}); the later mapping is ignored`,
        fix: `map the output of ${where} to another tensor`,
      });
    } else this.producers.set(tensor, p);
  }
  consume(tensor: string, to: Port, where: string): void {
    const from = this.producers.get(tensor);
    if (!from) {
      this.diagnostics.push({
        code: 'unproduced-tensor',
        severity: 'error',
        nodeId: to.node,
        port: to.port,
        message: `${where} reads ensemble tensor '${tensor}', which no step or ensemble input produces`,
        fix: `map a step output to '${tensor}'`,
      });
      return;
    }
    this.edges.push({
      id: `${from.node}.${from.port}->${to.node}.${to.port}`,
      source: from.node,
      sourcePort: from.port,
      target: to.node,
      targetPort: to.port,
    });
  }
}

function fromSidecar(name: string, sidecar: unknown): ImportResult {
  if (sidecar === undefined) {
    return {
      graph: newGraph(name),
      diagnostics: [
        {
          code: 'bls-without-sidecar',
          severity: 'error',
          message: `'${name}' was exported with the bls strategy: its graph lives only in ${name}/studio.json, which is missing`,
          fix: `restore ${name}/studio.json from the export, or rebuild the graph`,
        },
      ],
    };
  }
  const r = migrate(sidecar);
  if (r.ok) return { graph: r.graph, diagnostics: [] };
  return {
    graph: newGraph(name),
    diagnostics: [
      {
        code: 'invalid-sidecar',
        severity: 'error',
        message: `${name}/studio.json is not a valid graph: ${r.error}`,
        fix: `repair or remove ${name}/studio.json`,
      },
    ],
  };
}

function addStep(
  b: Rebuild,
  ensemble: string,
  catalogue: Catalogue,
  step: EnsembleStep,
  index: number,
  plain: boolean,
): { step: EnsembleStep; built: NonNullable<ReturnType<typeof stepNode>> } {
  const model = catalogueModel(catalogue, step.model_name);
  const base =
    model?.generated && step.model_name.startsWith(`${ensemble}_`)
      ? step.model_name.slice(ensemble.length + 1)
      : step.model_name;
  const id = b.uniqueId(base || `step_${index}`);
  if (!model) {
    b.diagnostics.push({
      code: 'missing-model',
      severity: 'error',
      nodeId: id,
      message: `step ${index} of '${ensemble}' uses model '${step.model_name}', which is not in the repository`,
      fix: `add '${step.model_name}' to the repository`,
    });
  }
  let built = stepNode(id, step.model_name, plain ? undefined : model);
  if (!built) {
    b.diagnostics.push({
      code: 'unknown-marker',
      severity: 'warning',
      nodeId: id,
      message: `model '${step.model_name}' carries a studio marker of unknown kind '${String(model?.generated?.kind)}'; imported as a plain model`,
      fix: 'update Ensemble Studio, or remove the marker',
    });
    built = {
      node: { id, kind: 'model', position: { x: 0, y: 0 }, params: { model: step.model_name } },
      inPort: (s) => s,
      outPort: (s) => s,
    };
  }
  b.nodes.push(built.node);
  return { step, built };
}

/**
 * Rebuilds a graph from an ensemble of the catalogue: input/output nodes from the ensemble's
 * I/O, one node per step (generated models come back as router/condition/op nodes), edges from
 * the tensor maps (a tensor read by several steps gives fan-out edges), auto-laid-out. Missing
 * models and broken wiring become diagnostics; a BLS export is read from its studio.json sidecar.
 * @example const { graph, diagnostics } = graphFromEnsemble('ensemble_model', catalogue)
 */
export function graphFromEnsemble(ensembleName: string, catalogue: Catalogue, opts: ImportOptions = {}): ImportResult {
  const ens = catalogueModel(catalogue, ensembleName);
  if (!ens)
    return {
      graph: newGraph(ensembleName),
      diagnostics: [
        {
          code: 'unknown-ensemble',
          severity: 'error',
          message: `no model named '${ensembleName}' in the repository`,
          fix: 'check the name',
        },
      ],
    };
  const steps = ens.config.ensemble_scheduling?.step ?? [];
  const isBls = (m?: { generated?: { kind: string } }) => m?.generated?.kind === 'bls';
  if (!opts.plainSteps && (isBls(ens) || steps.some((s) => isBls(catalogueModel(catalogue, s.model_name)))))
    return fromSidecar(ensembleName, opts.sidecar);
  if (ens.platform !== 'ensemble') {
    return {
      graph: newGraph(ensembleName),
      diagnostics: [
        {
          code: 'not-an-ensemble',
          severity: 'error',
          message: `'${ensembleName}' is not an ensemble (platform '${ens.platform || ens.backend}')`,
          fix: 'open an ensemble, or build a graph around this model',
        },
      ],
    };
  }
  const b = new Rebuild();
  const at = { x: 0, y: 0 };
  for (const t of ens.inputs) {
    const id = b.uniqueId(`in:${t.name}`);
    b.nodes.push({
      id,
      kind: 'input',
      position: at,
      params: { name: t.name, datatype: t.datatype, dims: [...t.dims], ...(t.optional ? { optional: true } : {}) },
    });
    b.produce(t.name, { node: id, port: 'out' }, `input '${t.name}'`);
  }
  const built = steps.map((s, i) => addStep(b, ensembleName, catalogue, s, i, opts.plainSteps === true));
  for (const { step, built: s } of built) {
    for (const [out, tensor] of Object.entries(step.output_map ?? {}))
      b.produce(tensor, { node: s.node.id, port: s.outPort(out) }, `step '${s.node.id}'`);
  }
  for (const { step, built: s } of built) {
    for (const [input, tensor] of Object.entries(step.input_map ?? {}))
      b.consume(tensor, { node: s.node.id, port: s.inPort(input) }, `step '${s.node.id}'`);
  }
  for (const t of ens.outputs) {
    const id = b.uniqueId(`out:${t.name}`);
    b.nodes.push({
      id,
      kind: 'output',
      position: at,
      params: { name: t.name, datatype: t.datatype, dims: [...t.dims] },
    });
    b.consume(t.name, { node: id, port: 'in' }, `output '${t.name}'`);
  }
  const graph: GraphDoc = {
    ...newGraph(ensembleName),
    maxBatchSize: Math.max(0, ens.maxBatchSize),
    nodes: b.nodes,
    edges: b.edges,
  };
  return { graph: layoutGraph(graph, { view: IMPORT_VIEW }), diagnostics: b.diagnostics };
}
