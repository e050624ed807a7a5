import type { GraphDoc, ModelNode } from '@ensemble-studio/core';
import { EngineError } from './errors.ts';
import { planFusion, type FusedGroup } from './fusion.ts';
import { indexGraph, memoByGraph, peekByGraph, type GraphIndex, type GraphMemo } from './graphIndex.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import type { RunRequest } from './types.ts';

/** What a run of a graph needs from the engine, worked out on its first run. */
export interface Prepared {
  byNode: Map<string, ModelRuntime>;
  runtimes: ModelRuntime[];
  /** A model of the graph that needs sequence flags. */
  stateful: ModelRuntime | undefined;
  /** Whether Triton would make the graph's ensemble decoupled (a decoupled model or a gate). */
  decoupled: boolean;
  groups: Map<string, FusedGroup> | undefined;
  /** The graph indexed once for every run of it (the scheduler copies what a run changes). */
  index: GraphIndex;
}

/**
 * Per graph document, every model node's runtime (resolved up front, so a graph needing an unavailable model fails
 * before it starts), its fused groups and its index: worked out on its first run and kept while the document's
 * nodes and edges are the ones seen. Each node's runtime is fixed until a reload (`reset`).
 */
export class PreparedGraphs {
  private prepared: GraphMemo<Promise<Prepared>> = new WeakMap();
  /** The same, once resolved. */
  private ready: GraphMemo<Prepared> = new WeakMap();

  /**
   * @param runtimeOf a model node's runtime (loaded on first use)
   * @param fuseOps whether ops may run in their model's worker (fusion.ts)
   */
  constructor(
    private readonly runtimeOf: (node: ModelNode) => Promise<ModelRuntime>,
    private readonly fuseOps: boolean,
  ) {}

  /** What `get` gave for this document before, while its nodes and edges are the ones it saw; nothing awaited. */
  now(graph: GraphDoc, req: RunRequest): Prepared | undefined {
    const p = peekByGraph(this.ready, graph);
    return p && checkSequence(p, graph, req);
  }

  /** The graph prepared (once per document). @throws EngineError when a model is unavailable or sequence flags are missing */
  async get(graph: GraphDoc, req: RunRequest): Promise<Prepared> {
    const p = await memoByGraph(this.prepared, graph, this.build);
    memoByGraph(this.ready, graph, () => p);
    return checkSequence(p, graph, req);
  }

  /** Forgets every graph (a reload replaced runtimes). */
  reset(): void {
    this.prepared = new WeakMap();
    this.ready = new WeakMap();
  }

  /** (Made once, not a closure per run.) */
  private readonly build = async (g: GraphDoc): Promise<Prepared> => {
    const nodes = g.nodes.filter((n): n is ModelNode => n.kind === 'model');
    const runtimes = await Promise.all(nodes.map(this.runtimeOf));
    const byNode = new Map(nodes.map((n, k) => [n.id, runtimes[k]!]));
    const decoupled =
      runtimes.some((rt) => rt.decoupled) ||
      g.nodes.some((n) => n.kind === 'condition' && n.params.strategy === 'gate');
    return {
      byNode,
      runtimes: [...new Set(runtimes)],
      stateful: runtimes.find((rt) => rt.sequences),
      groups: this.fusion(g, byNode),
      decoupled,
      index: indexGraph(g),
    };
  };

  /** Ops that run in their model's worker (fusion.ts); none when fusion is off or the graph has no ops. */
  private fusion(graph: GraphDoc, byNode: Map<string, ModelRuntime>): Map<string, FusedGroup> | undefined {
    if (!this.fuseOps || !graph.nodes.some((n) => n.kind === 'op')) return undefined;
    return planFusion(graph, (node) => byNode.get(node.id)?.fusable === true);
  }
}

/** `p`, unless its graph holds a stateful model and the run sent no sequence flags. */
function checkSequence(p: Prepared, graph: GraphDoc, req: RunRequest): Prepared {
  if (p.stateful && !req.sequence) {
    throw new EngineError(
      'invalid-input',
      `graph '${graph.name}' contains the stateful model '${p.stateful.name}': send a sequence id with START/END flags`,
    );
  }
  return p;
}
