// A request that names some of the graph's outputs, as Triton's ensemble serves it (core
// src/ensemble_scheduler/ensemble_scheduler.cc): the steps that feed none of the requested outputs are pruned before
// the first step runs (`EnsembleContext`'s backward traversal), and a response goes out as soon as the requested
// outputs of its iteration are set (`CheckAndSetEnsembleOutput` reads the request's requested outputs only).
import type { GraphDoc, GraphEdge, OutputNode } from '@ensemble-studio/core';
import type { FusedGroup } from './fusion.ts';
import type { GraphIndex } from './graphIndex.ts';

/** Pruned indexes per full index, by requested names (a stream asks for the same ones on every request). */
const MEMO = new WeakMap<GraphIndex, Map<string, GraphIndex>>();
/** Distinct requested sets remembered per graph; past it the memo starts again (a client may vary them). */
const MEMO_SIZE = 8;

/**
 * The part of `idx` a request for `requested` runs: the requested output nodes and every node with a path to one;
 * edges to the other nodes are dropped. `idx` itself when every output is requested (or none is named, which means
 * all), and when a `bls` condition makes the graph one BLS model (its generated model.py runs every step whatever
 * the request asks for; only the response leaves the others out). Names that are not outputs of the graph are
 * ignored (the KServe routes refuse them before the run).
 * @example requestedIndex(idx, graph, ['boxes']).outputs.map((n) => n.params.name) // ['boxes']
 */
export function requestedIndex(idx: GraphIndex, graph: GraphDoc, requested: readonly string[] | undefined): GraphIndex {
  if (!requested || requested.length === 0) return idx;
  const names = new Set(requested);
  const outputs = idx.outputs.filter((n) => names.has(n.params.name));
  if (outputs.length === idx.outputs.length) return idx;
  if (graph.nodes.some((n) => n.kind === 'condition' && n.params.strategy === 'bls')) return idx;
  const key = outputs.map((n) => n.id).join('\u0000');
  let byKey = MEMO.get(idx);
  const hit = byKey?.get(key);
  if (hit) return hit;
  if (!byKey || byKey.size >= MEMO_SIZE) MEMO.set(idx, (byKey = new Map()));
  const pruned = prune(idx, graph.edges, outputs);
  byKey.set(key, pruned);
  return pruned;
}

/** `idx` less the nodes that reach none of `outputs`. */
function prune(idx: GraphIndex, edges: readonly GraphEdge[], outputs: OutputNode[]): GraphIndex {
  const into = new Map<string, string[]>();
  for (const e of edges) into.set(e.target, [...(into.get(e.target) ?? []), e.source]);
  const kept = new Set<string>();
  const todo = outputs.map((n) => n.id);
  while (todo.length > 0) {
    const id = todo.pop()!;
    if (kept.has(id)) continue;
    kept.add(id);
    todo.push(...(into.get(id) ?? []));
  }
  const nodes = new Map([...idx.nodes].filter(([id]) => kept.has(id)));
  const inPorts = new Map([...idx.inPorts].filter(([id]) => kept.has(id)));
  const out = new Map<string, Map<string, GraphEdge[]>>();
  const next = new Map<string, Set<string>>();
  for (const id of kept) {
    const ports = new Map<string, GraphEdge[]>();
    for (const [port, es] of idx.out.get(id)!) {
      const to = es.filter((e) => kept.has(e.target));
      if (to.length > 0) ports.set(port, to);
    }
    out.set(id, ports);
    next.set(id, new Set([...idx.next.get(id)!].filter((t) => kept.has(t))));
  }
  return { nodes, inPorts, out, next, outputs };
}

/**
 * The fused groups a pruned run may use: those whose members all run (a group runs every member in one request, and
 * a member that was pruned must not run). The others' members run one by one.
 */
export function groupsOf(
  groups: Map<string, FusedGroup> | undefined,
  idx: GraphIndex,
): Map<string, FusedGroup> | undefined {
  if (!groups) return groups;
  const kept = [...groups].filter(([, g]) => g.members.every((m) => idx.nodes.has(m.id)));
  return kept.length === groups.size ? groups : new Map(kept);
}
