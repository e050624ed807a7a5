import type { GraphDoc } from '@ensemble-studio/core';

/** The models graph (or ensemble) `g`'s steps run, each once. */
function stepsOf(g: GraphDoc | undefined): Set<string> {
  const steps = new Set<string>();
  for (const node of g?.nodes ?? []) if (node.kind === 'model') steps.add(node.params.model);
  return steps;
}

/**
 * The models Triton's unload with `unload_dependents` removes beside `name`, in the order it removes them: each
 * composing model of a removed ensemble (or saved graph) that was not loaded by a request naming it (`implicit`: it
 * came with an ensemble's load) and that no other served ensemble still uses, then theirs in turn. A model loaded by
 * name, or at start, stays, as Triton keeps an explicitly loaded model.
 * @example dependentsToUnload('pipe', repo.graphs, served, new Set(['head'])) // ['head'] when nothing else uses head
 */
export function dependentsToUnload(
  name: string,
  graphs: Readonly<Record<string, GraphDoc>>,
  served: (model: string) => boolean,
  implicit: ReadonlySet<string>,
): string[] {
  const removed = new Set([name]);
  const out: string[] = [];
  const users = (model: string) =>
    Object.entries(graphs).some(([g, doc]) => !removed.has(g) && served(g) && stepsOf(doc).has(model));
  for (let queue = [name]; queue.length > 0;) {
    const next: string[] = [];
    for (const g of queue)
      for (const step of stepsOf(Object.hasOwn(graphs, g) ? graphs[g] : undefined)) {
        if (removed.has(step) || !implicit.has(step) || !served(step) || users(step)) continue;
        removed.add(step);
        out.push(step);
        next.push(step);
      }
    queue = next;
  }
  return out;
}
