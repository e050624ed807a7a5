import type { GraphNode, Tensor } from '@ensemble-studio/core';
import type { RunEvents } from './runEvents.ts';
import type { CancelSignal } from './cancel.ts';
import type { ExecContext } from './schedulerTypes.ts';
import type { TensorRefs } from './tensorRefs.ts';

/** Where a decoupled node's responses go as they arrive (the run's scheduler). */
interface StreamedResponses {
  streamed(node: GraphNode, resp: Record<string, Tensor>, final: boolean): void;
}

/**
 * The context a run's nodes execute in, made once per run. Its functions close over the run's parts, so an executor
 * may hand them on detached (`canTransfer`). Methods, not arrow properties: under tsx each named closure costs a
 * defineProperty per run (runClosures.test.ts).
 */
export function runContext(
  signal: CancelSignal,
  refs: TensorRefs,
  events: RunEvents,
  responses: StreamedResponses,
): ExecContext {
  return {
    signal,
    canTransfer(t) {
      return refs.canTransfer(t);
    },
    observed: events.observed,
    respond(node, outputs, final) {
      responses.streamed(node, outputs, final);
    },
    log(node, l) {
      events.log(node.id, l);
    },
  };
}
