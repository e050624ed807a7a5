// A run that has the engine to itself has the workers of its first model requests poll for them from its start
// (Placer.spinAhead), so that a request does not wait for a sleeping CPU to wake before its worker takes it.
import { availableParallelism } from 'node:os';
import type { GraphNode } from '@ensemble-studio/core';
import type { FusedGroup } from './fusion.ts';
import type { GraphIndex } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import type { Placer } from './placement.ts';
import { afterTurn } from './afterTurn.ts';

/**
 * The longest a worker polls for a run's first request: CPU spent for nothing when the request comes later (a run
 * refused before it is sent, a main thread descheduled). A bound on waste, not a timing of any machine: the request
 * follows the main thread's own preparation of the run (~0.2–0.4 ms here, engine README), and where that takes
 * longer than this, the hop measured with polling is no shorter and polling is not chosen.
 */
const SPIN_BUDGET_MS = 1;

/**
 * How many workers may poll at once: one per CPU beside the main thread's. More would take turns on a CPU with each
 * other or with the main thread while it prepares the requests (with two CPUs, two polling workers for a fan-out's two
 * det branches made the pair 10–37 % slower: engine README), and the way each measures would not show that; on one
 * CPU no worker polls.
 */
export const spareCpus = availableParallelism() - 1;

const starts = new WeakMap<GraphIndex, GraphNode[]>();

/** The nodes a run launches first: those fed by the graph's input nodes alone. Per graph index (its structure). */
export function startNodes(idx: GraphIndex): GraphNode[] {
  const known = starts.get(idx);
  if (known) return known;
  const fedByOthers = new Set<string>();
  const fedByInputs = new Set<string>();
  for (const [source, targets] of idx.next)
    for (const t of targets) (idx.nodes.get(source)?.kind === 'input' ? fedByInputs : fedByOthers).add(t);
  const found = [...fedByInputs].filter((id) => !fedByOthers.has(id)).map((id) => idx.nodes.get(id)!);
  starts.set(idx, found);
  return found;
}

/** Model node id → when the run's way to its first request began, polled for or not (`startSpins`; monotonic ns). */
export type SpinDecisions = Map<string, number>;

/** One of a run's first model requests (`fused`: a fused group's) and whether its worker polls for it. */
interface SpinEntry {
  model: string;
  rt: ModelRuntime;
  fused: boolean;
  spin: boolean;
}

/** A run's first model requests, each with whether its worker polls for it: decided, not yet asked (`startSpins`). */
export type SpinPlan = readonly SpinEntry[];

/**
 * For each model request the run sends first (a model node, or a fused group: `fused` holds this run's, by first
 * member), the placer's decision whether its worker polls for it; at most one polling worker per CPU beside the main
 * thread's, none when the process has one CPU. Made when the run starts, or ahead of it (decidedAhead.ts).
 */
export function planSpins(
  idx: GraphIndex,
  fused: Map<string, FusedGroup> | undefined,
  runtimes: Map<string, ModelRuntime>,
  placer: Placer,
  keyOf: (model: GraphNode) => string,
): SpinPlan {
  const plan: SpinEntry[] = [];
  let spare = spareCpus;
  for (const node of startNodes(idx)) {
    if (spare <= 0) break;
    const group = fused?.get(node.id);
    const model = group ? group.members.find((m) => m.kind === 'model') : node.kind === 'model' ? node : undefined;
    const rt = model && runtimes.get(model.id);
    if (!model || !rt || plan.some((p) => p.model === model.id)) continue;
    const spin = placer.spinAhead(keyOf(model));
    if (spin) spare--;
    plan.push({ model: model.id, rt, fused: group !== undefined, spin });
  }
  return plan;
}

/**
 * Has the workers `plan` chose poll for their requests, and returns when each request's way began (now), so that the
 * time from there to the worker's taking it is recorded against the choice (`noteSpin`): the main thread's whole way
 * to the request, the message asking the worker to poll included.
 * @example startSpins(planSpins(index, fused, byNode, placer, (n) => placementKey('ocr', n.id))) // Map { 'det' => 8.1e12 }
 */
export function startSpins(plan: SpinPlan): SpinDecisions {
  const started: SpinDecisions = new Map();
  for (const p of plan) {
    started.set(p.model, Number(process.hrtime.bigint()));
    if (p.spin) p.rt.spinAhead(SPIN_BUDGET_MS * 1e6, p.fused);
  }
  return started;
}

/**
 * The first request of model node `model` in a run that decided whether its worker polls for it (`spins`): records,
 * once and after this turn (`afterTurn`: the run's answer does not wait for it), the time from that decision to the
 * worker's taking the request under `key()`, as polled or not (`r.spun`: the worker it went to was polling when it was
 * posted), and returns which; undefined for any other request.
 */
export function noteSpin(
  spins: SpinDecisions | undefined,
  placer: Placer,
  model: string,
  key: () => string,
  r: { arrivedNs?: number; spun?: boolean; instance: string },
): boolean | undefined {
  const decidedNs = spins?.get(model);
  if (decidedNs === undefined) return undefined;
  spins!.delete(model);
  if (r.arrivedNs === undefined) return undefined;
  const spun = r.spun === true;
  const ms = (r.arrivedNs - decidedNs) / 1e6;
  afterTurn(() => placer.recordSpin(key(), spun, ms, r.instance));
  return spun;
}
