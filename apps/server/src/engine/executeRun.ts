import type { ServerMessage } from '@ensemble-studio/core';
import type { Deadlines } from './cancel.ts';
import type { GraphStats } from './graphStats.ts';
import { checkInputs } from './inputs.ts';
import { createExecutor } from './nodeExecutor.ts';
import type { OpRunner } from './OpRunner.ts';
import type { PreparedGraphs } from './PreparedGraphs.ts';
import { afterTurn } from './afterTurn.ts';
import { armRunCancel } from './runCancel.ts';
import type { RunFusion } from './runFusion.ts';
import { boundNotice, emitEnd } from './runMessages.ts';
import { runResponses } from './runResponses.ts';
import { Scheduler } from './Scheduler.ts';
import { nodeKey } from './nodeKey.ts';
import { FirstRequests } from './firstRequests.ts';
import { planSpins, spareCpus, startSpins } from './spinAhead.ts';
import type { DecidedAhead } from './decidedAhead.ts';
import { RunHosts } from './hostAhead.ts';
import type { SchedulerOptions } from './schedulerTypes.ts';
import type { EngineOptions, RunRequest, RunResult } from './types.ts';

/** What a run takes from its engine: the graphs prepared for it, the op workers, deadlines and counters. */
export interface RunDeps {
  readonly opts: EngineOptions;
  readonly graphs: PreparedGraphs;
  readonly ops: OpRunner;
  /** Which planned fused groups each run fuses, from measured costs (placement.ts). */
  readonly runFusion: RunFusion;
  /** A lone run's choices, made when the lone run of its graph before it ended (decidedAhead.ts). */
  readonly ahead: DecidedAhead;
  readonly deadlines: Deadlines;
  readonly graphStats: GraphStats;
}

/**
 * One admitted run, from its graph to its result: the graph prepared (or reused), its models' runtimes held to its
 * end, its deadline and cancel armed, the scheduler run, its end sent and its responses finished. Throws for a run
 * refused before it starts (bad inputs, an unavailable model); the engine reports those. `lone`: no other run is in
 * flight, so the workers of its first requests may poll for them (spinAhead.ts) on CPUs nothing else needs.
 */
export async function executeRun(
  deps: RunDeps,
  runId: string,
  req: RunRequest,
  emit: (m: ServerMessage) => void,
  lone = false,
): Promise<RunResult> {
  const { graph } = req;
  // A lone run of a graph prepared before, whose choices were made ahead, has the workers of its first requests
  // polling before anything else is done (a run refused next wastes at most their polling budget).
  const known = lone ? preparedQuietly(deps.graphs, graph, req) : undefined;
  const early = known && deps.ahead.take(known.index, known.groups, known.byNode);
  const earlySpins = early && startSpins(early.spins);
  checkInputs(graph, req.inputs);
  // A graph prepared before (every chunk of a stream after its first) is used without awaiting anything.
  const { byNode, runtimes, groups, decoupled, index } =
    known ?? deps.graphs.now(graph, req) ?? (await deps.graphs.get(graph, req));
  // The run holds its models' runtimes to its end: one that an unload or a reload retires meanwhile still serves
  // its later steps.
  for (const rt of runtimes) rt.runStarted();
  // (Closures made per run are kept few: a stream runs a graph ~31 times a second.)
  const timeoutMs = req.timeoutMs ?? deps.opts.defaultTimeoutMs ?? 60_000;
  const { cancel, disarm } = armRunCancel(req.signal, timeoutMs, deps.deadlines);
  try {
    const ahead = early || deps.ahead.take(index, groups, byNode);
    const fused = ahead ? ahead.fused : groups && deps.runFusion.groups(groups, graph.name);
    const spins = lone
      ? earlySpins ||
        startSpins(ahead?.spins ?? planSpins(index, fused, byNode, deps.ops.placer, (m) => nodeKey(graph.name, m)))
      : undefined;
    // Hosted only where every group runs once (no decoupled model) and all of them do.
    const hosts =
      lone && fused && !req.requestedOutputs && !runtimes.some((rt) => rt.decoupled)
        ? new RunHosts({
            index,
            fused,
            runtimes: byNode,
            placer: deps.ops.placer,
            graph: graph.name,
            keyOf: nodeKey,
          })
        : undefined;
    const t0 = performance.now();
    const observed = req.onEvent !== undefined;
    // Where the run is alone and its first requests' inputs are the request's, they go out now (firstRequests.ts); not
    // on one CPU, where what follows the post would only take turns with the worker it woke.
    const first =
      hosts && fused && !req.sequence && spareCpus > 0
        ? FirstRequests.send({ graph: graph.name, runtimes: byNode, ops: deps.ops, hosts }, index, fused, req.inputs, {
            signal: cancel,
            observed,
          })
        : undefined;
    const executor = createExecutor({
      graph: graph.name,
      runtimes: byNode,
      ops: deps.ops,
      sequence: req.sequence,
      onBound: req.sequence && req.onEvent ? boundNotice(emit, req.sequence) : undefined,
      ...(req.queueTimeoutUs ? { queueTimeoutUs: req.queueTimeoutUs } : {}),
      ...(req.priority ? { priority: req.priority } : {}),
      ...(spins && spins.size > 0 ? { spins } : {}),
      ...(hosts ? { hosts } : {}),
      ...(first ? { first } : {}),
    });
    const responses = runResponses(req, decoupled);
    const options: SchedulerOptions = {
      runId,
      graph,
      index,
      inputs: req.inputs,
      executor,
      signal: cancel,
      emit,
      observed,
      groups: fused,
      startedAt: t0,
    };
    if (req.requestedOutputs) options.requestedOutputs = req.requestedOutputs;
    if (req.requestId) options.requestId = req.requestId;
    if (responses.streamed) options.onResponse = responses.streamed;
    const scheduler = new Scheduler(options);
    for (const rt of runtimes) for (const message of rt.notices) emit({ type: 'notice', level: 'warning', message });
    const r = await scheduler.run();
    // What the run's timings teach the placer waits until the caller has its result.
    if (groups && fused && r.status !== 'failed')
      afterTurn(() => deps.runFusion.record(groups, graph.name, fused, r.timings));
    // A lone run is likely followed by another (a client's requests one after the other): its choices are made now.
    if (lone)
      afterTurn(() => {
        const next = groups && deps.runFusion.groups(groups, graph.name);
        deps.ahead.put(index, groups, byNode, {
          fused: next,
          spins: planSpins(index, next, byNode, deps.ops.placer, (m) => nodeKey(graph.name, m)),
        });
      });
    deps.graphStats.of(graph.name).streamedResponses += r.partials;
    if (cancel.aborted && req.sequence) for (const rt of runtimes) rt.releaseSequence(req.sequence.id);
    if (req.onEvent) emitEnd(runId, r, performance.now() - t0, emit);
    responses.end(r);
    const result: RunResult = {
      runId,
      status: r.status,
      outputs: r.outputs,
      timings: r.timings,
      startedAtMs: scheduler.startedAtMs,
    };
    if (r.exit) result.exit = r.exit;
    if (r.error) result.error = r.error;
    return result;
  } finally {
    for (const rt of runtimes) rt.runEnded();
    disarm();
  }
}

/** `graphs.now`, or undefined where it would refuse the run: that refusal then comes after the inputs' check. */
function preparedQuietly(graphs: PreparedGraphs, graph: RunRequest['graph'], req: RunRequest) {
  try {
    return graphs.now(graph, req);
  } catch {
    return undefined;
  }
}
