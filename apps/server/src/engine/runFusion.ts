import { fusionUnits, trimGroup, type FusedGroup } from './fusion.ts';
import { placementKey, type Placer } from './placement.ts';

interface PlanMemo {
  /** Per planned group: its units, as node ids. */
  units: { group: FusedGroup; units: string[][] }[];
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
      const units = [...plan.values()].map((group) => ({
        group,
        units: fusionUnits(group).map((u) => u.map((n) => n.id)),
      }));
      this.memo.set(plan, (memo = { units, byChoice: new Map() }));
    }
    let choice = '';
    for (const { units } of memo.units)
      for (const unit of units) choice += this.placer.fuse(unit.map((id) => placementKey(graph, id))) ? 'f' : '-';
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
}
