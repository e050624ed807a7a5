import type { GraphNode } from '../graph/types.ts';
import { nodePorts } from '../kinds/registry.ts';
import type { Diagnostic } from '../validate/diagnostic.ts';
import { consumersOf, isDirectRouter, resolveSource, type GraphInfo } from './graphInfo.ts';
import { tritonSafe } from './pyStr.ts';

/** A node port and the name of the matching input/output on the step's model. */
export interface StepPort {
  port: string;
  name: string;
}

/** One ensemble step: a model node, or a node the compiler turns into a generated model. */
export interface Step {
  node: GraphNode;
  /** `model_name` of the step. */
  modelName: string;
  inputs: StepPort[];
  outputs: StepPort[];
}

/** How a graph maps onto ensemble steps and tensors. */
export interface EnsemblePlan {
  info: GraphInfo;
  steps: Step[];
  /** `${nodeId}:${port}` of a producing port → ensemble tensor name (only for consumed ports). */
  tensors: Map<string, string>;
  diagnostics: Diagnostic[];
}

/**
 * The name of the generated model for a router/condition/op node: `<graph>_<nodeId>`, sanitised.
 * @example generatedModelName('ocr', 'db post') === 'ocr_db_post'
 */
export function generatedModelName(graphName: string, nodeId: string): string {
  return tritonSafe(`${graphName}_${nodeId}`);
}

/** Input/output names of a condition's generated gate model for port `p`. */
export function gateTensorNames(port: string): { input: string; output: string } {
  const p = tritonSafe(port);
  return { input: `IN_${p}`, output: `OUT_${p}` };
}

/** True when the node becomes an ensemble step (direct routers and I/O nodes do not). */
function isStepNode(n: GraphNode): boolean {
  return n.kind === 'model' || n.kind === 'op' || n.kind === 'condition' || (n.kind === 'router' && !isDirectRouter(n));
}

function stepOf(info: GraphInfo, n: GraphNode): Step {
  const ports = nodePorts(info.graph, n, info.catalogue);
  const same = (names: string[]): StepPort[] => names.map((port) => ({ port, name: port }));
  if (n.kind === 'model') {
    return {
      node: n,
      modelName: n.params.model,
      inputs: same(ports.inputs.map((p) => p.name)),
      outputs: same(ports.outputs.map((p) => p.name)),
    };
  }
  const modelName = generatedModelName(info.graph.name, n.id);
  if (n.kind === 'condition') {
    return {
      node: n,
      modelName,
      inputs: n.params.ports.map((port) => ({ port, name: gateTensorNames(port).input })),
      outputs: n.params.ports.map((port) => ({ port, name: gateTensorNames(port).output })),
    };
  }
  return {
    node: n,
    modelName,
    inputs: same(ports.inputs.map((p) => p.name)),
    outputs: same(ports.outputs.map((p) => p.name)),
  };
}

/**
 * Assigns ensemble tensor names and builds the step list (topological order). A step output that
 * feeds an output node takes that output's name; other intermediates are `<nodeId>__<port>`.
 * Unconsumed step outputs are pruned from the plan with a warning (Triton refuses unused tensors).
 */
export function planEnsemble(info: GraphInfo): EnsemblePlan {
  const diagnostics: Diagnostic[] = [];
  const tensors = new Map<string, string>();
  const used = new Set<string>();
  for (const n of info.graph.nodes) {
    if (n.kind === 'input') {
      tensors.set(`${n.id}:out`, n.params.name);
      used.add(n.params.name);
    }
    if (n.kind === 'output') used.add(n.params.name);
  }
  const steps = info.order.filter(isStepNode).map((n) => stepOf(info, n));
  for (const step of steps) nameStepOutputs(info, step, tensors, used, diagnostics);
  checkInputsWiredToOutputs(info, diagnostics);
  return { info, steps, tensors, diagnostics };
}

function nameStepOutputs(
  info: GraphInfo,
  step: Step,
  tensors: Map<string, string>,
  used: Set<string>,
  diagnostics: Diagnostic[],
): void {
  for (const out of step.outputs) {
    const consumers = consumersOf(info, step.node.id, out.port);
    if (consumers.length === 0) {
      diagnostics.push({
        code: 'unused-output',
        severity: 'warning',
        nodeId: step.node.id,
        port: out.port,
        message: `output '${out.port}' of ${step.node.id} is not used; the compiler leaves it out of the ensemble`,
        fix: 'connect it to a consumer or an output if you need it',
      });
      continue;
    }
    const outputNames = [
      ...new Set(
        consumers
          .filter((c) => c.node.kind === 'output')
          .map((c) => (c.node.kind === 'output' ? c.node.params.name : '')),
      ),
    ];
    // A step output feeding two graph outputs is validation's `output-wired-twice` (ensembles only: BLS reads both from it).
    const name = outputNames[0] ?? uniqueName(`${tritonSafe(step.node.id)}__${tritonSafe(out.port)}`, used);
    used.add(name);
    tensors.set(`${step.node.id}:${out.port}`, name);
  }
}

function uniqueName(base: string, used: Set<string>): string {
  let name = base;
  for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
  return name;
}

/** Triton cannot map an ensemble input straight to an ensemble output: there must be a step. */
function checkInputsWiredToOutputs(info: GraphInfo, diagnostics: Diagnostic[]): void {
  for (const n of info.graph.nodes) {
    if (n.kind !== 'output') continue;
    const src = resolveSource(info, n.id, 'in');
    if (src?.node.kind === 'input') {
      diagnostics.push({
        code: 'output-from-input',
        severity: 'error',
        nodeId: n.id,
        message: `ensemble output '${n.params.name}' comes straight from input '${src.node.params.name}'; an ensemble needs a step in between`,
        fix: 'insert a copy router between them',
      });
    }
  }
}

/** The ensemble tensor feeding input `port` of `nodeId` (through direct routers), or null. */
export function tensorInto(plan: EnsemblePlan, nodeId: string, port: string): string | null {
  const src = resolveSource(plan.info, nodeId, port);
  return src ? (plan.tensors.get(`${src.node.id}:${src.port}`) ?? null) : null;
}
