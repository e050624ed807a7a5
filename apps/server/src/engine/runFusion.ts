import type { NodeTiming } from '@ensemble-studio/core';
import { fusionUnits, trimGroup, type FusedGroup } from './fusion.ts';
import { placementKey, type Placer } from './placement.ts';

interface PlanMemo {
  /** Per planned group: its units, as node ids, and per unit the other units (indices) it reads from. */
  units: { group: FusedGroup; units: string[][]; reads: number[][] }[];
  /** The groups of a run, by which units it fuses (one letter per unit). */
  byChoice: Map<string, Map<string, FusedGroup>>;
}

/**
 * Which of a graph's planned fused groups (fusion.ts) run fused this time: per unit of ops, the placer's
 * decision from the costs measured so far (placement.ts). The result is keyed by first member, as the
 * scheduler expects; it is the same Map object whenever the same units are fused.
 */
export class RunFusion {
  private readonly memo = new WeakMap<Map<string, FusedGroup>, PlanMemo>();

  constructor(private readonly placer: Placer) {}

  /** The groups to run fused in this run of graph `graph` with fusion plan `plan`. */
  groups(plan: Map<string, FusedGroup>, graph: string): Map<string, FusedGroup> {
    let memo = this.memo.get(plan);
    if (!memo) {
      const units = [...plan.values()].map((group) => {
        const ids = fusionUnits(group).map((u) => u.map((n) => n.id));
        return {
          group,
          units: ids,
          reads: ids.map((u) => [...new Set(needs(group, u).map((id) => ids.findIndex((v) => v.includes(id))))]),
        };
      });
      this.memo.set(plan, (memo = { units, byChoice: new Map() }));
    }
    let choice = '';
    for (const { units, reads } of memo.units) {
      const start = choice.length;
      units.forEach((unit, j) => {
        // A unit reading a member of an unfused unit cannot run in the worker: that tensor is not there.
        const can = reads[j]!.every((i) => choice[start + i] === 'f');
        choice += can && this.placer.fuse(unit.map((id) => placementKey(graph, id))) ? 'f' : '-';
      });
    }
    let groups = memo.byChoice.get(choice);
    if (!groups) {
      groups = new Map();
      let u = 0;
      for (const { group, units } of memo.units) {
        const keep = new Set<string>();
        for (const unit of units) if (choice[u++] === 'f') for (const id of unit) keep.add(id);
        const trimmed = trimGroup(group, keep);
        if (trimmed) groups.set(trimmed.members[0]!.id, trimmed);
      }
      memo.byChoice.set(choice, groups);
    }
    return groups;
  }

  /**
   * Records what each fusion unit's choice cost in a finished run of `plan` that fused `groups` (what `groups`
   * returned): per planned group whose model ran, its span (first member's start to last member's end) less the
   * model's compute and its members' queueing, plus what its members took of the event loop, for each unit as
   * fused or apart (`Placer.recordUnit`). A unit whose choice was forced (it reads a unit that ran apart) is not
   * recorded.
   */
  record(plan: Map<string, FusedGroup>, graph: string, groups: Map<string, FusedGroup>, timings: NodeTiming[]): void {
    const memo = this.memo.get(plan);
    if (!memo) return;
    const fused = new Set<string>();
    for (const g of groups.values()) for (const m of g.members) if (m.kind !== 'model') fused.add(m.id);
    for (const { group, units, reads } of memo.units) {
      let modelMs: number | undefined;
      let queuedMs = 0;
      let loopMs = 0;
      let start = Infinity;
      let end = -Infinity;
      for (const t of timings) {
        const member = group.members.find((m) => m.id === t.nodeId);
        if (!member) continue;
        if (member.kind === 'model') modelMs = t.computeMs;
        queuedMs += t.queueMs; // a fused request's queueing is on its first member
        if (t.placement === 'inline') loopMs += t.computeMs;
        start = Math.min(start, t.startMs);
        end = Math.max(end, t.endMs);
      }
      if (modelMs === undefined) continue;
      // The event loop's time counts twice: in the span (this run waited for it) and again as the time it took
      // from every other run in flight (their events, their next requests).
      const ms = end - start - modelMs - queuedMs + loopMs;
      const isFused = units.map((u) => fused.has(u[0]!));
      units.forEach((unit, j) => {
        if (reads[j]!.every((i) => isFused[i]))
          this.placer.recordUnit(
            unit.map((id) => placementKey(graph, id)),
            isFused[j]!,
            ms,
          );
      });
    }
  }
}

/** The members other than the model that `unit` reads from, outside the unit itself. */
function needs(group: FusedGroup, unit: string[]): string[] {
  const out: string[] = [];
  group.members.forEach((m, k) => {
    if (!unit.includes(m.id)) return;
    for (const src of Object.values(group.inputs[k]!)) {
      const from = 'step' in src ? group.members[src.step]! : undefined;
      if (from && from.kind !== 'model' && !unit.includes(from.id)) out.push(from.id);
    }
  });
  return out;
}
