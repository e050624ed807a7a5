// A run's choices made ahead are used once, by a run of the same prepared graph with the same runtimes (the engine's
// use of them: loneRun.test.ts).
import { describe, expect, it } from 'vitest';
import { DecidedAhead } from './decidedAhead.ts';
import type { FusedGroup } from './fusion.ts';
import { indexGraph } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import { ocrGraph } from '../testing/engineGraphs.ts';

describe('DecidedAhead', () => {
  const index = indexGraph(ocrGraph());
  const plan = new Map<string, FusedGroup>();
  const runtimes = new Map<string, ModelRuntime>();
  const choices = { fused: plan, spins: [] };

  it('gives the choices made for a graph once', () => {
    const ahead = new DecidedAhead();
    expect(ahead.take(index, plan, runtimes)).toBeUndefined();
    ahead.put(index, plan, runtimes, choices);
    expect(ahead.take(index, plan, runtimes)).toBe(choices);
    expect(ahead.take(index, plan, runtimes)).toBeUndefined();
  });

  it('drops choices made for another fusion plan or other runtimes (the graph prepared again)', () => {
    const ahead = new DecidedAhead();
    ahead.put(index, plan, runtimes, choices);
    expect(ahead.take(index, new Map(), runtimes)).toBeUndefined();
    expect(ahead.take(index, plan, runtimes)).toBeUndefined(); // taken by the first, even unused
    ahead.put(index, plan, runtimes, choices);
    expect(ahead.take(index, plan, new Map())).toBeUndefined();
  });
});
