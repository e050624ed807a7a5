// What a lone run decides before it sends anything — which of its graph's planned fused groups it fuses, and which
// workers poll for its first requests — decided once the lone run of the same graph before it has ended (after its
// answer, with what that run taught the placer), so that the run's own way to its first request holds none of it.
// Those decisions took ~160 µs of the ~490 from `engine.run` to the early exit's request posted, on a main thread
// that runs cold between sporadic runs (engine README, "The early exit's way, shortened").
import type { FusedGroup } from './fusion.ts';
import type { GraphIndex } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import type { SpinPlan } from './spinAhead.ts';

/** The choices of one run made ahead: the groups it fuses (undefined: none planned) and its first requests' polling. */
export interface RunChoices {
  fused: Map<string, FusedGroup> | undefined;
  spins: SpinPlan;
}

interface Entry {
  plan: Map<string, FusedGroup> | undefined;
  runtimes: Map<string, ModelRuntime>;
  choices: RunChoices;
}

/**
 * The next run's choices per prepared graph (its index), each taken once. Choices made for other runtimes or another
 * fusion plan (the graph prepared again: a model reloaded) are not used; a run that finds none decides as it starts.
 * @example ahead.put(index, groups, byNode, choices); … const c = ahead.take(index, groups, byNode) // once
 */
export class DecidedAhead {
  private readonly next = new WeakMap<GraphIndex, Entry>();

  put(
    index: GraphIndex,
    plan: Map<string, FusedGroup> | undefined,
    runtimes: Map<string, ModelRuntime>,
    choices: RunChoices,
  ): void {
    this.next.set(index, { plan, runtimes, choices });
  }

  take(
    index: GraphIndex,
    plan: Map<string, FusedGroup> | undefined,
    runtimes: Map<string, ModelRuntime>,
  ): RunChoices | undefined {
    const e = this.next.get(index);
    if (!e) return undefined;
    this.next.delete(index);
    return e.plan === plan && e.runtimes === runtimes ? e.choices : undefined;
  }
}
