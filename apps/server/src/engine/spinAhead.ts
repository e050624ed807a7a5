// A run that has the engine to itself has the workers of its first model requests poll for them from its start
// (Placer.spinAhead), so that a request does not wait for a sleeping CPU to wake before its worker takes it.
import { availableParallelism } from 'node:os';
import type { GraphNode } from '@ensemble-studio/core';
import type { FusedGroup } from './fusion.ts';
import type { GraphIndex } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import type { Placer } from './placement.ts';

/**
 * The longest a worker polls for a run's first request: CPU spent for nothing when the request comes later (a run
 * refused before it is sent, a main thread descheduled). A bound on waste, not a timing of any machine: the request
 * follows the main thread's own preparation of the run (~0.2–0.4 ms here, engine README), and where that takes
 * longer than this, the hop measured with polling is no shorter and polling is not chosen.
 */
const SPIN_BUDGET_MS = 1;

/**
 * Whether a polling worker has a CPU of its own beside the main thread's. With one, it would take turns with the main
 * thread while that prepares the request (unless the event loop runs real-time), slowing what it waits for, and the
 * hop it measures would not show that: on one CPU no worker polls.
 */
const spareCpu = availableParallelism() > 1;

const starts = new WeakMap<GraphIndex, GraphNode[]>();

/** The nodes a run launches first: those fed by the graph's input nodes alone. Per graph index (its structure). */
function startNodes(idx: GraphIndex): GraphNode[] {
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

/**
 * For each model request the run sends first (a model node, or a fused group: `fused` holds this run's, by first
 * member), asks the placer whether its worker polls for it, and has it poll when so. Returns model node id → the
 * decision, so that the request's hop is recorded against it (`Placer.recordSpin`); empty when the run sends no
 * model request first, or when the process has one CPU.
 * @example spinFirstRequests(index, fused, byNode, placer, (n) => placementKey('ocr', n.id)) // Map { 'det' => true }
 */
export function spinFirstRequests(
  idx: GraphIndex,
  fused: Map<string, FusedGroup> | undefined,
  runtimes: Map<string, ModelRuntime>,
  placer: Placer,
  keyOf: (model: GraphNode) => string,
): Map<string, boolean> {
  const decided = new Map<string, boolean>();
  if (!spareCpu) return decided;
  for (const node of startNodes(idx)) {
    const group = fused?.get(node.id);
    const model = group ? group.members.find((m) => m.kind === 'model') : node.kind === 'model' ? node : undefined;
    const rt = model && runtimes.get(model.id);
    if (!model || !rt || decided.has(model.id)) continue;
    const spin = placer.spinAhead(keyOf(model));
    decided.set(model.id, spin);
    if (spin) rt.spinAhead(SPIN_BUDGET_MS * 1e6, group !== undefined);
  }
  return decided;
}

/**
 * The first request of model node `model` in a run whose start decided whether its worker polls for it (`spins`, from
 * `spinFirstRequests`): records its hop against that choice under `key()`, once, and returns whether the worker
 * polled; undefined for any other request.
 */
export function noteSpin(
  spins: Map<string, boolean> | undefined,
  placer: Placer,
  model: string,
  key: () => string,
  r: { hopMs?: number; spun?: boolean; instance: string },
): boolean | undefined {
  if (spins?.delete(model) !== true || r.hopMs === undefined) return undefined;
  placer.recordSpin(key(), r.spun === true, r.hopMs, r.instance);
  return r.spun === true;
}
