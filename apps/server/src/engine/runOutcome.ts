// How a scheduled run ends: the exit a condition takes, the failure a node causes, why the nodes that never ran
// were skipped, and the result the scheduler hands back. Pure functions of the run's state.
import type { ConditionNode, GraphDoc, GraphNode, NodeTiming, SkipReason, Tensor } from '@ensemble-studio/core';
import type { CancelSignal } from './cancel.ts';
import { abortError, EngineError } from './errors.ts';
import { exitDefaults } from './exitOutputs.ts';
import { logRequest } from './logRequest.ts';
import type { GraphIndex } from './graphIndex.ts';
import { StepInputsError } from './omittedInputs.ts';
import type { ExitInfo, SchedulerResult } from './schedulerTypes.ts';

/** Why a run stopped: its failing node (or an `error` exit), as the run reports it. */
export interface RunFailure {
  code: string;
  message: string;
  nodeId?: string;
}

/**
 * The exit a condition that held takes; `failure` is set for the `error` strategy (the run fails with
 * `early-exit`). A gate only starves the nodes behind it; bls and error end the request (`stops`).
 * @example conditionExit(graph, cond, false).exit.strategy // 'gate'
 */
export function conditionExit(
  graph: GraphDoc,
  node: ConditionNode,
  value: number | boolean,
): { exit: ExitInfo; stops: boolean; failure?: RunFailure } {
  const { strategy, expression, message } = node.params;
  const exit: ExitInfo = {
    conditionId: node.id,
    expression,
    value,
    strategy,
    ...(strategy === 'error' ? { message } : {}),
  };
  if (strategy !== 'error') return { exit, stops: strategy !== 'gate' };
  const failure = {
    code: 'early-exit',
    message: `in ensemble '${graph.name}', ${message || `condition '${node.id}' ended the pipeline`}`,
    nodeId: node.id,
  };
  return { exit, stops: true, failure };
}

/**
 * The run's failure when `node` failed with `message`: an engine error keeps its code, anything else is `node-failed`.
 * `requestId`: the id of the request the run serves (a step's request carries it in Triton).
 */
export function nodeFailure(
  graph: GraphDoc,
  node: GraphNode,
  err: unknown,
  message: string,
  requestId: string | undefined,
): RunFailure {
  // The model's input checks refused the step's request: Triton names the ensemble, then its request's words.
  if (err instanceof StepInputsError)
    return {
      code: err.code,
      message: `in ensemble '${graph.name}', ${logRequest(requestId)}${message}`,
      nodeId: node.id,
    };
  const code = err instanceof EngineError && err.code !== 'node-failed' ? err.code : 'node-failed';
  return { code, message: `in ensemble '${graph.name}', node '${node.label ?? node.id}': ${message}`, nodeId: node.id };
}

/** Why the nodes that never ran were skipped; undefined when the run simply ran out of work. */
export function skipReasonOf(
  signal: CancelSignal,
  failure: RunFailure | undefined,
  exit: ExitInfo | undefined,
): SkipReason | undefined {
  if (signal.aborted) return { type: 'cancelled', message: abortError(signal).message };
  if (failure && failure.code !== 'early-exit')
    return { type: 'upstream-failed', nodeId: failure.nodeId ?? '', message: failure.message };
  if (exit) return { type: 'exit', conditionId: exit.conditionId, expression: exit.expression, value: exit.value };
  return undefined;
}

/** What a finished run's scheduler knows. */
export interface RunState {
  graph: GraphDoc;
  /** The id of the request the run serves (KServe's `id`), if it has one. */
  requestId: string | undefined;
  idx: GraphIndex;
  signal: CancelSignal;
  failure: RunFailure | undefined;
  exit: ExitInfo | undefined;
  outputs: Record<string, Tensor>;
  timings: NodeTiming[];
  partials: number;
  /** Nodes that finished having sent no response (a decoupled model's choice). */
  silentNodes: number;
  /** Nodes that started, and output nodes that received a tensor or a placeholder. */
  executed: ReadonlySet<string>;
}

/** The result of a run that has nothing more in flight. */
export function schedulerResult(s: RunState): SchedulerResult {
  const base = { timings: s.timings, partials: s.partials, ...(s.exit ? { exit: s.exit } : {}) };
  if (s.signal.aborted) {
    const e = abortError(s.signal);
    return { ...base, status: 'failed', outputs: {}, error: { code: e.code, message: e.message } };
  }
  if (s.failure) return { ...base, status: 'failed', outputs: {}, error: s.failure };
  if (s.exit) {
    const outputs = s.exit.strategy === 'bls' ? exitDefaults(s.graph, s.idx, s.exit.conditionId) : {};
    return { ...base, status: 'exited_early', outputs };
  }
  // The common case first, with nothing allocated: every output was produced.
  let produced = 0;
  for (const n of s.idx.outputs) if (s.outputs[n.params.name]) produced++;
  if (produced === s.idx.outputs.length)
    return { timings: s.timings, partials: s.partials, status: 'completed', outputs: s.outputs };
  // A decoupled model may answer a request with no response at all (only the final flag): nothing more to send.
  if (s.silentNodes > 0) return { ...base, status: 'completed', outputs: s.outputs };
  // An output a response left out reached its output node as a placeholder: it is left out of the run's response,
  // as Triton's ensemble leaves it out ("Composing models did not output tensor") and a plain model's response
  // carries what the model made. One that nothing ever reached has no answer: Triton's ensemble, finishing with
  // no response sent, fails with its deadlock error (`FinishEnsemble`).
  for (const n of s.idx.outputs)
    if (!s.executed.has(n.id))
      return {
        ...base,
        status: 'failed',
        outputs: {},
        error: {
          code: 'output-missing',
          message: `in ensemble '${s.graph.name}', ${logRequest(s.requestId)}unexpected deadlock, at least one output is not set while no more ensemble steps can be made`,
        },
      };
  return { ...base, status: 'completed', outputs: s.outputs };
}
