import type { GraphNode, ModelNode, Tensor } from '@ensemble-studio/core';
import { conditionHolds } from './condition.ts';
import { ChainError, EngineError } from './errors.ts';
import type { FusedGroup } from './fusion.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import { generatedStepInputs, type StepInputs } from './omittedInputs.ts';
import type { ChainResult, InferRequest } from './modelRuntimeTypes.ts';
import type { OpResult, OpRunner } from './OpRunner.ts';
import { placementKey } from './placement.ts';
import { nodeKey } from './nodeKey.ts';
import { runtimeOf, sendGroup, type FirstRequests } from './firstRequests.ts';
import { noteSpin, type SpinDecisions } from './spinAhead.ts';
import type { ExecContext, GroupRun, NodeExecutor, NodeRun } from './schedulerTypes.ts';
import { afterTurn } from './afterTurn.ts';
import { copyStamps, type ComputeStamps } from './computeStamps.ts';
import { perfMsOfNs } from './monotonicClock.ts';
import { receivedOutputs } from './tensorTransfer.ts';
import { restoreSummary } from './tensorSummary.ts';
import type { StageResult } from './backends/onnx/workerProtocol.ts';
import { chainComputeMs, chainSteps } from './chainSteps.ts';
import type { RunHosts } from './hostAhead.ts';
import type { SequenceFlags } from './sequenceTensors.ts';
import type { LogLevel } from './backends/python/pythonTypes.ts';

export interface ExecutorDeps {
  /** The graph's name: op nodes' costs are measured per graph and node (placement.ts). */
  graph: string;
  /** Model node id → its runtime (resolved before the run starts). */
  runtimes: Map<string, ModelRuntime>;
  ops: OpRunner;
  sequence?: SequenceFlags;
  onBound?: (node: ModelNode, model: string, instance: string) => void;
  /** The run's request's queue timeout (µs), handed to each model request. */
  queueTimeoutUs?: number;
  /** The run's request's priority, handed to each model request. */
  priority?: number;
  /** Model node id → when the run decided whether its worker polls for its first request (spinAhead.ts, `noteSpin`). */
  spins?: SpinDecisions;
  /** A lone run's requests run by the worker of the request before them (hostAhead.ts). */
  hosts?: RunHosts;
  /** A lone run's first fused requests, sent as it began (firstRequests.ts). */
  first?: FirstRequests;
}

/**
 * The engine's NodeExecutor: model nodes go to their model's scheduler (instances in workers),
 * op nodes to the OpRunner, condition nodes are evaluated here (cheap: reductions over small tensors),
 * fused groups (fusion.ts) to their model's worker as one request.
 */
export function createExecutor(deps: ExecutorDeps): NodeExecutor {
  return new GraphNodeExecutor(deps);
}

/** A class rather than an object of closures: the engine makes one per run. */
class GraphNodeExecutor implements NodeExecutor {
  constructor(private readonly deps: ExecutorDeps) {}

  // Not an async function: one returning another's promise costs two more microtask hops per node.
  execute(node: GraphNode, inputs: Record<string, Tensor>, ctx: ExecContext): Promise<NodeRun> {
    const { deps } = this;
    switch (node.kind) {
      case 'model':
        return runModel(deps, node, inputs, ctx);
      case 'op':
        return deps.ops
          .run(node.params.op, inputs, node.params.values, {
            key: nodeKey(deps.graph, node),
            signal: ctx.signal,
            canTransfer: ctx.canTransfer,
            summarize: ctx.observed,
          })
          .then(opRun);
      case 'condition': {
        const t0 = performance.now();
        const { holds, value } = conditionHolds(node.params.expression, inputs, node.id);
        const computeMs = performance.now() - t0;
        // A condition may be fused into a model's worker too (fusion.ts): its time here is its cost apart.
        deps.ops.placer.costs.record(nodeKey(deps.graph, node), 'inline', computeMs, 'condition@main');
        return Promise.resolve(
          holds ? { responses: [], exit: { value }, computeMs } : { responses: [inputs], computeMs },
        );
      }
      default:
        throw new EngineError('invalid-graph', `node '${node.id}' of kind ${node.kind} cannot be executed`);
    }
  }

  executeGroup(group: FusedGroup, inputs: Record<string, Tensor>, ctx: ExecContext): Promise<GroupRun> {
    return runGroup(this.deps, group, inputs, ctx);
  }

  stepInputs(node: GraphNode): StepInputs | undefined {
    if (node.kind !== 'model') return generatedStepInputs(this.deps.graph, node);
    const rt = runtimeOf(this.deps, node);
    const inputs = (rt.config.input ?? []).map((i) => ({ port: i.name, name: i.name, optional: i.optional === true }));
    return { model: rt.name, inputs };
  }
}

function opRun(r: OpResult): NodeRun {
  return {
    responses: [r.outputs],
    computeMs: r.computeMs,
    queueMs: r.queueMs,
    instance: r.instance,
    placement: r.placement,
  };
}

async function runGroup(
  deps: ExecutorDeps,
  group: FusedGroup,
  inputs: Record<string, Tensor>,
  ctx: ExecContext,
): Promise<GroupRun> {
  // Its request may already be running in its producer's worker (hostAhead.ts).
  const claimed = deps.hosts?.claim(group, inputs, ctx.canTransfer);
  const plan = claimed?.steps ?? chainSteps(group, Object.keys(inputs));
  const { steps, modelStep } = plan;
  const last = steps.length - 1;
  const model = group.members[modelStep]!;
  const placement = `fused:${model.id}` as const;
  const key = nodeKey(deps.graph, model);
  // Steps after the session: the worker may wake the main thread as the session returns (Placer.wakeAhead).
  const wakeKey = modelStep < last ? key : undefined;
  let wakeAhead = claimed?.wakeAhead === true;
  try {
    let t0 = performance.now();
    let r: ChainResult;
    // Sent as the run began (firstRequests.ts): before this thread launched it.
    const early = claimed ? undefined : deps.first?.claim(group, inputs, ctx.canTransfer);
    if (claimed) r = await claimed.promise;
    else {
      const sent = early ?? sendGroup(deps, group, inputs, ctx, plan);
      t0 = sent.t0;
      wakeAhead = sent.wakeAhead;
      r = await sent.promise;
    }
    const done = r;
    const unqueuedMs = performance.now() - t0 - r.queueMs;
    deps.hosts?.produced(group, r);
    const hosted = deps.hosts?.consumed(group, r);
    const learn = (): void => {
      // Its hop is a main-thread round trip's only when its feeds came from here.
      if (!claimed) measureChain(deps, group, done, unqueuedMs);
      deps.ops.placer.costs.record(key, 'chain', chainComputeMs(done.stages), `${key}#chain@${done.instance}`);
      // Only a request that ran a step after its session had a reply to wake ahead of.
      if (wakeKey !== undefined && done.stages.length > modelStep + 1)
        deps.ops.placer.recordWake(wakeKey, wakeAhead, done.replyMs, done.instance);
    };
    afterTurn(learn);
    const spunAhead = noteSpin(deps.spins, deps.ops.placer, model.id, () => nodeKey(deps.graph, model), r);
    const runs = r.stages.map((s, k): NodeRun => ({
      // A condition that held sends nothing on; a member before the last, only what goes to output nodes.
      responses:
        s.exit !== undefined
          ? []
          : [k === last ? r.outputs : s.outputs ? receivedOutputs({ outputs: s.outputs, summaries: s.summaries }) : {}],
      computeMs: s.computeNs / 1e6,
      instance: r.instance,
      summaries: plainSummaries(s),
      ...(s.batchSize !== undefined ? { batchSize: s.batchSize } : {}),
      ...(s.exit !== undefined ? { exit: { value: s.exit } } : {}),
      ...(k === modelStep
        ? {
            ...(wakeKey !== undefined ? { wokeAhead: wakeAhead } : {}),
            ...(spunAhead !== undefined ? { spunAhead } : {}),
            ...(hosted !== undefined ? { hosted } : {}),
          }
        : { placement }),
      // A hosted request was taken by its instance when its producer's was; it started when its host began it.
      ...stageStamps(claimed ? r.arrivedNs : r.startNs, s),
    }));
    // A hosted request began when its host began it, one sent as the run began when it was sent: either can be
    // before this thread launched it.
    if (claimed && r.arrivedNs !== undefined) return { runs, queueMs: r.queueMs, startedAt: perfMsOfNs(r.arrivedNs) };
    return early ? { runs, queueMs: r.queueMs, startedAt: t0 } : { runs, queueMs: r.queueMs };
  } catch (err) {
    deps.hosts?.produced(group, undefined);
    if (!(err instanceof ChainError)) throw err;
    const runs = err.stages.map((s, k): NodeRun => ({
      responses: [{}],
      computeMs: s.computeNs / 1e6,
      instance: err.instance,
      summaries: plainSummaries(s),
      ...(k === modelStep ? {} : { placement }),
    }));
    return { runs, failure: err, queueMs: 0 };
  }
}

/** Records what a fused request measured: each op's time in the model's worker, and the hop (the rest). */
function measureChain(
  deps: ExecutorDeps,
  group: FusedGroup,
  r: { stages: StageResult[]; instance: string },
  unqueuedMs: number,
): void {
  const { costs } = deps.ops.placer;
  let computeMs = 0;
  r.stages.forEach((s, k) => {
    const node = group.members[k]!;
    computeMs += s.computeNs / 1e6;
    if (node.kind === 'op' || node.kind === 'condition') {
      const code = node.kind === 'op' ? node.params.op : 'condition';
      costs.record(placementKey(deps.graph, node.id), 'fused', s.computeNs / 1e6, `${code}@${r.instance}`);
    }
  });
  costs.recordHop(unqueuedMs - computeMs);
}

function plainSummaries(stage: StageResult): NodeRun['summaries'] {
  return Object.fromEntries(Object.entries(stage.summaries).map(([port, s]) => [port, restoreSummary(s)]));
}

function runModel(
  deps: ExecutorDeps,
  node: ModelNode,
  inputs: Record<string, Tensor>,
  ctx: ExecContext,
): Promise<NodeRun> {
  const rt = runtimeOf(deps, node);
  const { feeds, added } = addBatchDim(rt, inputs);
  const strip = added ? removeBatchDim : unchanged;
  const decoupled = rt.decoupled;
  // Built field by field: a stream makes this request ~31 times a second, mostly with none of the optional parts.
  const req: InferRequest = {
    inputs: feeds,
    signal: ctx.signal,
    sequence: deps.sequence,
    canTransfer: ctx.canTransfer,
    summarize: ctx.observed,
  };
  if (deps.onBound) req.onBound = boundTo(deps.onBound, node, rt.name);
  if (deps.queueTimeoutUs) req.queueTimeoutUs = deps.queueTimeoutUs;
  if (deps.priority) req.priority = deps.priority;
  if (decoupled) req.respond = (o: Record<string, Tensor>, final: boolean) => ctx.respond(node, strip(o), final);
  if (ctx.observed)
    req.onLog = (level: LogLevel, message: string, instance: string) =>
      ctx.log(node, { model: rt.name, instance, level, message });
  return rt.infer(req).then((r) => {
    const run = copyStamps<NodeRun>(
      {
        // A decoupled model's responses already flowed downstream one by one.
        responses: decoupled ? (r.responses ?? []).map(strip) : [strip(r.outputs)],
        queueMs: r.queueMs,
        computeMs: r.computeMs,
        batchSize: r.batchSize,
        instance: r.instance,
      },
      r,
    );
    const spunAhead = noteSpin(deps.spins, deps.ops.placer, node.id, () => nodeKey(deps.graph, node), r);
    if (spunAhead !== undefined) run.spunAhead = spunAhead;
    return run;
  });
}

function boundTo(
  onBound: NonNullable<ExecutorDeps['onBound']>,
  node: ModelNode,
  model: string,
): (instance: string) => void {
  return (instance) => onBound(node, model, instance);
}

/**
 * A batching model (max_batch_size > 0) takes its inputs with the batch dim first. A tensor one rank
 * short of the model's full shape (e.g. from a non-batching ensemble) gets a batch dim of 1, and the
 * outputs lose it again.
 */
function addBatchDim(
  rt: ModelRuntime,
  inputs: Record<string, Tensor>,
): { feeds: Record<string, Tensor>; added: boolean } {
  const cfg = rt.config;
  if ((cfg.max_batch_size ?? 0) <= 0) return { feeds: inputs, added: false };
  let short = 0;
  let count = 0;
  for (const n in inputs) {
    count++;
    if (rt.inputRanks.get(n) === inputs[n]!.shape.length) short++;
  }
  if (short === 0 || short !== count) return { feeds: inputs, added: false };
  const feeds: Record<string, Tensor> = {};
  for (const n in inputs) feeds[n] = { ...inputs[n]!, shape: [1, ...inputs[n]!.shape] };
  return { feeds, added: true };
}

const unchanged = (o: Record<string, Tensor>): Record<string, Tensor> => o;

function removeBatchDim(outputs: Record<string, Tensor>): Record<string, Tensor> {
  return Object.fromEntries(Object.entries(outputs).map(([n, t]) => [n, { ...t, shape: t.shape.slice(1) }]));
}

/** A fused member's stamps: when an instance took the group, and when this step ran in its worker. */
function stageStamps(groupStartNs: number | undefined, s: StageResult): ComputeStamps {
  if (groupStartNs === undefined || s.startNs === undefined) return {};
  return { startNs: groupStartNs, inferStartNs: s.startNs, inferEndNs: s.startNs + s.computeNs };
}
