import type { FusedGroup } from './fusion.ts';
import type { ChainStep, StageResult } from './backends/onnx/workerProtocol.ts';

/**
 * A fused group as its worker runs it (workerChain.ts): its members in order, the first fed by the request's feeds
 * (named as its input ports `feeds`), the others by the steps before them; and which step is the model's session.
 * The same object for the same group and feed names.
 * @example chainSteps(group, ['x']) // { steps: [{ kind: 'model', inputs: { x: { feed: 'x' } } }, …], modelStep: 0 }
 */
export function chainSteps(group: FusedGroup, feeds: readonly string[]): ChainPlan {
  const key = feeds.join('\0');
  let byFeeds = plans.get(group);
  const known = byFeeds?.get(key);
  if (known) return known;
  const plan = makeSteps(group, feeds);
  if (!byFeeds) plans.set(group, (byFeeds = new Map()));
  byFeeds.set(key, plan);
  return plan;
}

/** A fused group's steps as its worker runs them, and which is the model's session. Shared: never changed. */
export interface ChainPlan {
  readonly steps: ChainStep[];
  readonly modelStep: number;
}

/**
 * The plans made, per group and feed names: the same list each time, so that a worker is sent it once
 * (chainStepsWire.ts), and none is built per request.
 */
const plans = new WeakMap<FusedGroup, Map<string, ChainPlan>>();

function makeSteps(group: FusedGroup, feeds: readonly string[]): ChainPlan {
  const steps = group.members.map((m, k): ChainStep => {
    const wiring = k === 0 ? Object.fromEntries(feeds.map((port) => [port, { feed: port }])) : group.inputs[k]!;
    const exports = group.exports?.[k];
    const extra = exports && exports.length > 0 ? { inputs: wiring, exports } : { inputs: wiring };
    if (m.kind === 'op') return { kind: 'op', op: m.params.op, values: m.params.values, ...extra };
    if (m.kind === 'condition') return { kind: 'condition', id: m.id, expression: m.params.expression, ...extra };
    return { kind: 'model', ...extra };
  });
  return { steps, modelStep: group.members.findIndex((m) => m.kind === 'model') };
}

/** A fused request's compute: its steps' times summed, ms. */
export function chainComputeMs(stages: readonly StageResult[]): number {
  let ns = 0;
  for (const s of stages) ns += s.computeNs;
  return ns / 1e6;
}
