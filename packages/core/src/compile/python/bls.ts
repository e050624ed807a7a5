import { fullShape, catalogueModel } from '../../catalogue/types.ts';
import type { ConditionNode, GraphNode, OutputNode } from '../../graph/types.ts';
import type { ModelConfig } from '../../pbtxt/modelConfig.ts';
import { numpyType } from '../../tensor/dtype.ts';
import type { Diagnostic } from '../../validate/diagnostic.ts';
import { ensembleConfig } from '../ensemble.ts';
import { applySettings } from '../../config/nodeSettings.ts';
import { tensorInto, type EnsemblePlan, type Step } from '../plan.ts';
import { IdentAllocator, indent, pyStr, pyValue, tritonSafe } from '../pyStr.ts';
import type { RepoFile } from '../types.ts';
import { markerParameters, PY_HEADER, PY_HOLDS, type GeneratedModel } from './common.ts';
import { predicatePython } from './condition.ts';
import { blsDriver } from './blsDriver.ts';
import { emitOpPython } from './ops/index.ts';
import { sortedValues } from './opModel.ts';

interface Ctx {
  plan: EnsemblePlan;
  idents: IdentAllocator;
  diagnostics: Diagnostic[];
  files: RepoFile[];
  /** Module-level definitions (condition predicates). */
  defs: string[];
  /** Lines of `initialize` (op loading). */
  init: string[];
  /** Extra methods of TritonPythonModel (per-condition defaults). */
  methods: string[];
  name: string;
}

const v = (tensor: string): string => `v[${pyStr(tensor)}]`;

/**
 * The whole graph as ONE Python BLS model named after the graph (no ensemble): composing models
 * are called with `pb_utils.InferenceRequest(...).exec()` in topological order, ops run inline
 * (each op's code in its own `op_<node>.py` beside model.py), conditions are evaluated in Python;
 * on exit the declared defaults are returned (`error` conditions return the error instead).
 * @example blsModel(plan).config.backend === 'python'
 */
export function blsModel(plan: EnsemblePlan): GeneratedModel {
  const { graph } = plan.info;
  const ctx: Ctx = {
    plan,
    idents: new IdentAllocator(),
    diagnostics: [],
    files: [],
    defs: [],
    init: [],
    methods: [],
    name: graph.name,
  };
  const body: string[] = [];
  for (const step of plan.steps) body.push(...stepLines(ctx, step));
  body.push('return [');
  for (const o of outputNodes(graph.nodes)) {
    const t = tensorInto(plan, o.id, 'in');
    body.push(
      `    pb_utils.Tensor(${pyStr(o.params.name)}, ${t === null ? defaultExpr(ctx, o, undefined) : `np.asarray(${v(t)}, dtype=${numpyType(o.params.datatype)})`}),`,
    );
  }
  body.push(']');
  const ens = ensembleConfig(plan);
  const config: ModelConfig = {
    name: graph.name,
    backend: 'python',
    max_batch_size: graph.maxBatchSize,
    input: ens.input ?? [],
    output: ens.output ?? [],
    instance_group: [{ kind: 'KIND_CPU', count: 1 }],
    parameters: markerParameters({ kind: 'bls', graph: graph.name }),
  };
  const firstBls = graph.nodes.find((n): n is ConditionNode => n.kind === 'condition' && n.params.strategy === 'bls');
  const text = [
    PY_HEADER.replace('import json\n', 'import importlib.util\nimport json\n'),
    `GRAPH = ${pyStr(graph.name)}`,
    `INPUTS = ${pyValue((ens.input ?? []).map((i) => i.name))}`,
    '',
    '',
    PY_HOLDS,
    ...ctx.defs.map((d) => `\n${d}\n`),
    blsDriver(ctx.init),
    defaultsMethod(ctx, '_defaults', firstBls),
    ...ctx.methods,
    '    def _run(self, request, v, batch):',
    indent(body.join('\n'), 8),
    '',
  ].join('\n');
  return {
    name: graph.name,
    config,
    files: [{ path: `${graph.name}/1/model.py`, text }, ...ctx.files],
    diagnostics: ctx.diagnostics,
  };
}

function defaultsMethod(ctx: Ctx, name: string, cond: ConditionNode | undefined): string {
  const lines = outputNodes(ctx.plan.info.graph.nodes).map(
    (o) => `            pb_utils.Tensor(${pyStr(o.params.name)}, ${defaultExpr(ctx, o, cond)}),`,
  );
  return [
    `    def ${name}(self, batch):`,
    '        """The outputs returned when the pipeline ends early."""',
    '        return [',
    ...lines,
    '        ]',
    '',
  ].join('\n');
}

function outputNodes(nodes: readonly GraphNode[]): OutputNode[] {
  return nodes.filter((n): n is OutputNode => n.kind === 'output');
}

function stepLines(ctx: Ctx, step: Step): string[] {
  const n = step.node;
  const outs = step.outputs
    .map((o) => ({ ...o, tensor: ctx.plan.tensors.get(`${n.id}:${o.port}`) }))
    .filter((o) => o.tensor !== undefined);
  const ins = step.inputs
    .map((i) => ({ ...i, tensor: tensorInto(ctx.plan, n.id, i.port) }))
    .filter((i) => i.tensor !== null);
  const inDict = `_pick(v, ${pyValue(ins.map((i) => [i.name, i.tensor]))})`;
  const header = `# ${n.kind} ${tritonSafe(n.id)}`;
  switch (n.kind) {
    case 'model': {
      const m = catalogueModel(ctx.plan.info.catalogue, n.params.model);
      const cfg = m ? applySettings(m, n.params.settings) : undefined;
      const sequence = cfg?.sequence_batching !== undefined;
      const decoupled = cfg?.model_transaction_policy?.decoupled === true;
      return [
        header,
        `r = self._call(request, ${pyStr(n.params.model)}, ${inDict}, ${pyValue(outs.map((o) => o.name))}, sequence=${pyValue(sequence)}, decoupled=${pyValue(decoupled)})`,
        'if r is None:',
        '    return self._defaults(batch)',
        ...outs.map((o) => `${v(o.tensor!)} = r[${pyStr(o.name)}]`),
      ];
    }
    case 'op': {
      const fn = ctx.idents.get(`op_${n.id}`);
      const file = `${fn}.py`;
      try {
        const emitted = emitOpPython(n.params.op, sortedValues(n.params.values));
        ctx.files.push({ path: `${ctx.name}/1/${file}`, text: `import os\n\nimport numpy as np\n\n${emitted.code}` });
        for (const f of emitted.files) ctx.files.push({ path: `${ctx.name}/${f.to}`, copyFrom: f.from });
      } catch (e) {
        ctx.diagnostics.push({
          code: 'op-emit-failed',
          severity: 'error',
          nodeId: n.id,
          message: `cannot generate ${n.params.op}: ${(e as Error).message}`,
        });
      }
      ctx.init.push(`self.${fn} = _load_op(${pyStr(file)})`);
      return [
        header,
        `r = self.${fn}(${inDict}, self.model_dir)`,
        ...outs.map((o) => `${v(o.tensor!)} = np.asarray(r[${pyStr(o.name)}])`),
      ];
    }
    case 'router':
      return [header, ...outs.map((o) => `${v(o.tensor!)} = np.copy(${v(ins[0]?.tensor ?? '')})`)];
    case 'condition':
      return conditionLines(
        ctx,
        n,
        ins.map((i) => ({ port: step.inputs.find((s) => s.name === i.name)!.port, tensor: i.tensor! })),
        outs,
      );
    default:
      return [];
  }
}

function conditionLines(
  ctx: Ctx,
  n: ConditionNode,
  ins: { port: string; tensor: string }[],
  outs: { port: string; tensor?: string }[],
): string[] {
  const fn = ctx.idents.get(`exit_when_${n.id}`);
  ctx.defs.push(predicatePython(n.params.expression, (p) => `t[${pyStr(p)}]`, fn));
  let exit = `    raise _Failure(${pyStr(n.params.message)})`;
  if (n.params.strategy !== 'error') {
    const method = ctx.idents.get(`_defaults_${n.id}`);
    ctx.methods.push(defaultsMethod(ctx, method, n));
    exit = `    return self.${method}(batch)`;
  }
  const byPort = new Map(ins.map((i) => [i.port, i.tensor]));
  return [
    `# condition ${tritonSafe(n.id)} (${n.params.strategy === 'error' ? 'fails the request' : 'exits with defaults'})`,
    `t = {${ins.map((i) => `${pyStr(i.port)}: ${v(i.tensor)}`).join(', ')}}`,
    `if ${fn}(t):`,
    exit,
    ...outs.filter((o) => byPort.has(o.port)).map((o) => `${v(o.tensor!)} = ${v(byPort.get(o.port)!)}`),
  ];
}

/** Python expression for an output's value on early exit: its declared default, else empty. */
function defaultExpr(ctx: Ctx, o: OutputNode, cond: ConditionNode | undefined): string {
  const defaults = cond?.params.defaults ?? {};
  // Own properties only: an output named like an Object.prototype member must not pick it up.
  const d = Object.hasOwn(defaults, o.params.name)
    ? defaults[o.params.name]
    : Object.hasOwn(defaults, o.id)
      ? defaults[o.id]
      : undefined;
  const dtype = numpyType(o.params.datatype);
  const bytes = o.params.datatype === 'BYTES';
  if (d) {
    const data = bytes ? `[s.encode("utf-8") for s in ${pyValue(d.data.map(String))}]` : pyValue(d.data);
    return `np.array(${data}, dtype=${dtype}).reshape(${pyValue(d.shape)})`;
  }
  const batched = ctx.plan.info.graph.maxBatchSize > 0;
  const full = fullShape(o.params.dims, ctx.plan.info.graph.maxBatchSize);
  let emptied = false;
  const dims = full.map((dim, i) => {
    if (batched && i === 0) return 'batch';
    if (dim !== -1) return String(dim);
    if (emptied) return '1';
    emptied = true;
    return '0';
  });
  const shape = `(${dims.join(', ')}${dims.length === 1 ? ',' : ''})`;
  return bytes ? `np.full(${shape}, b"", dtype=np.object_)` : `np.zeros(${shape}, dtype=${dtype})`;
}
