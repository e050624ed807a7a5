// Where each op runs — on the main thread, in an op worker, or fused into its model's worker — decided
// from what the engine measures while it runs, on this machine, not from timing constants.
import { CostTable, Recent, type Place } from './costTable.ts';

/** Names a graph's node for the cost table: graph documents are often rebuilt for each run (a client's JSON). */
export function placementKey(graph: string, node: string): string {
  return `${graph}\u0000${node}`;
}

/** The cost table's (and the decisions') key for a fusion unit of placement keys. */
export const unitKey = (unit: string[]): string => `fuse\u0000${unit.join('\u0000')}`;

/**
 * The longest an op may hold the event loop. Not a measurement of any machine: a responsiveness
 * requirement (the engine streams results and schedules other runs on that thread; its lag goal is a
 * p99 of a few ms and a run has several ops). An op whose measured inline time exceeds it runs elsewhere.
 */
export const LOOP_BLOCK_BUDGET_MS = 1;

/**
 * Exploration: a node's EXPLORE_EVERY-th decision runs it in the place whose estimate is oldest, so an estimate
 * that went stale (JIT warm-up, other load on the machine) is measured again. Each exploration that finds the
 * same place cheapest as the one before it doubles the wait to the next, up to MAX_EXPLORE_GAP decisions; one
 * that finds another cheapest starts again from EXPLORE_EVERY. An exploration costs a run its better place (an
 * early exit's preprocess and DB apart from det: +1–2 ms, or a 7–14 ms page-faulting probe of preprocess on the
 * event loop), so once the choice has held a few times it is re-checked rarely, not every 16th run.
 */
export const EXPLORE_EVERY = 16;

/**
 * The longest wait between two explorations of a node, in decisions: how long a choice that has held stands
 * unchecked (~8 s of a stream's 31 chunks a second; ~4 s of back-to-back early exits). A bound on staleness,
 * not a measurement of any machine.
 */
export const MAX_EXPLORE_GAP = 256;

/** A way to run a unit of ops, with what it is predicted to cost and whether it may be run at all now. */
export interface Candidate<T> {
  value: T;
  /** Predicted ms; undefined when some part of it was never measured. */
  cost: number | undefined;
  /** Oldest sample behind the prediction (-1: never sampled). */
  sampledAt: number;
  /** False when choosing it would break a rule (an op over the loop budget inline). */
  allowed: boolean;
  /** May be explored though not allowed (its estimate may be stale: an op quick elsewhere, slow inline once). */
  probe?: boolean;
  /** What it may cost, from what was measured elsewhere, while `cost` is unknown. */
  proxy?: number | undefined;
}

/** The cheapest allowed candidate with a cost, if any. */
function cheapest<T>(candidates: Candidate<T>[]): Candidate<T> | undefined {
  let best: Candidate<T> | undefined;
  for (const c of candidates)
    if (c.allowed && c.cost !== undefined && (best === undefined || c.cost < best.cost!)) best = c;
  return best;
}

/**
 * Picks among `candidates`: while none allowed has a cost, the first allowed (the order is the
 * preference); then one without a cost whose `proxy` is below the cheapest cost (likely better: try it
 * now); on an exploring decision (`explore`) the one, other than the cheapest, allowed or `probe`, run
 * longest ago; otherwise the cheapest allowed. Deterministic: no clock, no random.
 * @example pick([{ value: 'a', cost: 2, sampledAt: 1, allowed: true }, { value: 'b', cost: 1, sampledAt: 2, allowed: true }], false) // 'b'
 */
export function pick<T>(candidates: Candidate<T>[], explore: boolean): T {
  // Loops, not filter/reduce: an inline op of a stream is placed once per chunk.
  const best = cheapest(candidates);
  if (!best) {
    for (const c of candidates) if (c.allowed) return c.value;
    return candidates[0]!.value;
  }
  for (const c of candidates)
    if (c.allowed && c.cost === undefined && c.proxy !== undefined && c.proxy < best.cost!) return c.value;
  if (explore) {
    let oldest: Candidate<T> | undefined;
    for (const c of candidates)
      if (c !== best && (c.allowed || c.probe) && (oldest === undefined || c.sampledAt < oldest.sampledAt)) oldest = c;
    if (oldest) return oldest.value;
  }
  return best.value;
}

/** When a node's next exploration is due (`Placer.decide`). */
interface Schedule {
  /** Decisions so far. */
  n: number;
  /** The decision that explores next. */
  due: number;
  /** Decisions between the last exploration and the next. */
  gap: number;
  /** The cheapest place at the last exploration. */
  best: unknown;
}

/**
 * The engine's placement decisions for op nodes, from the costs it measured (`costs`):
 * - apart from its model, an op runs inline when that is measured cheaper than its op-worker time plus
 *   a hop, and within LOOP_BLOCK_BUDGET_MS; before its inline time is known, the time it took elsewhere
 *   stands in for it (an op never measured anywhere goes to a worker first: it may be long), and an op
 *   quick elsewhere keeps being re-probed inline even when it was once slow there;
 * - ops the fusion plan could run in their model's worker (a unit: ops that must go together) are fused
 *   when that cost their group less than running apart did (`recordUnit`); until both are measured, when the
 *   sum of their fused times is below the sum of their best times apart. Running apart is first tried on an
 *   exploring decision, not at once: apart, an op cannot beat its fused time by more than the difference
 *   between threads, and until measured it would cost a hop.
 * Each decision explores by `pick`'s rule when its schedule says (EXPLORE_EVERY, then up to MAX_EXPLORE_GAP while
 * the choice holds), so every estimate keeps being measured.
 */
export class Placer {
  readonly costs = new CostTable();
  private readonly schedules = new Recent<Schedule>();

  /** Where op `node` runs, apart from its model, this time. */
  opPlace(node: string): 'inline' | 'op-worker' {
    return this.decide(node, this.apart(node));
  }

  /**
   * Whether the ops of `unit` (non-empty) run fused into their model's worker this time. Once its group's cost
   * under both choices is measured (`recordUnit`), those decide; until then, the ops' own times fused and apart.
   */
  fuse(unit: string[]): boolean {
    const key = unitKey(unit);
    const { costs } = this;
    const spanFused = costs.estimate(key, 'fused');
    const spanApart = costs.estimate(key, 'apart');
    if (spanFused !== undefined && spanApart !== undefined)
      return this.decide(key, [
        { value: true, cost: spanFused, sampledAt: costs.sampledAt(key, 'fused'), allowed: true },
        { value: false, cost: spanApart, sampledAt: costs.sampledAt(key, 'apart'), allowed: true },
      ]);
    let fused: number | undefined = 0;
    let apart: number | undefined = 0;
    let fusedAt = Infinity;
    let apartAt = Infinity;
    for (const node of unit) {
      const f = costs.estimate(node, 'fused');
      fused = f === undefined || fused === undefined ? undefined : fused + f;
      fusedAt = Math.min(fusedAt, costs.sampledAt(node, 'fused'));
      const known = this.apart(node).filter((c) => c.allowed && c.cost !== undefined);
      const best = known.length > 0 ? known.reduce((a, c) => (c.cost! < a.cost! ? c : a)) : undefined;
      apart = best === undefined || apart === undefined ? undefined : apart + best.cost!;
      apartAt = Math.min(apartAt, best?.sampledAt ?? -1);
    }
    return this.decide(key, [
      { value: true, cost: fused, sampledAt: fusedAt, allowed: true },
      { value: false, cost: apart, sampledAt: apartAt, allowed: true },
    ]);
  }

  /**
   * What running `unit` fused or apart cost its group in one finished run (`RunFusion.record`): the group's span,
   * from its first member's start to its last member's end, less its model's compute and queueing, plus the time
   * its members held the event loop (taken from every other run in flight). Unlike the ops' own times it holds
   * everything the choice changes: apart, the main thread makes and sends the model's input and takes its whole
   * output back (an early exit's 1.2 MB preprocessed image and 400 KB probability map; engine README, "Fusion
   * decided by what it costs the group").
   */
  recordUnit(unit: string[], fused: boolean, ms: number): void {
    const key = unitKey(unit);
    const place = fused ? 'fused' : 'apart';
    this.costs.record(key, place, ms, `${key}@${place}`);
  }

  /**
   * Whether the next fused request of model node `model` (`placementKey`) whose steps go on after its session has
   * its worker post a `soon` message to the main thread as the session returns, so that the main thread's CPU is
   * awake when the reply follows its last steps' time: on a VM whose idle vCPU halts, waking it costs
   * 0.1–0.3 ms, and a wake-up 0.1–0.5 ms ahead of the reply overlaps most of that with those steps (engine README,
   * "Waking the main thread ahead of a reply"). Decided, like a placement, by the reply's hop measured each way
   * (`recordWake`), not assumed: where a CPU wakes quickly the message only costs the main thread a turn.
   */
  wakeAhead(model: string): boolean {
    // Woken first while neither is measured (the cheaper in every measurement so far); the other is explored.
    return this.either(model, 'wake', 'woken', 'unwoken');
  }

  /**
   * One fused request of `model`'s reply hop (from its worker's post to this thread's receipt: what waking ahead
   * shortens, whatever the request carried), woken ahead or not, on `instance`; the instance's first WARMUP_RUNS
   * requests do not count either way (its thread's code is not yet optimised then).
   */
  recordWake(model: string, woken: boolean, replyMs: number, instance: string): void {
    this.costs.record(model, woken ? 'woken' : 'unwoken', replyMs, `${model}#wake@${instance}`);
  }

  /**
   * Whether the worker that will take model node `model`'s first request of a run that has the engine to itself
   * polls its port for it from the run's start (`ModelRuntime.spinAhead`, spinAhead.ts), instead of sleeping until
   * the request wakes it: on a VM whose idle vCPU halts, that wake-up is most of the request's way to the worker
   * (engine README, "A worker polling for a run's first request"). Decided by that way measured each way
   * (`recordSpin`); polling first while neither is measured.
   */
  spinAhead(model: string): boolean {
    return this.either(model, 'spin', 'spun', 'unspun');
  }

  /**
   * One such request's way to its worker, from the run's decision to the worker's taking it (the message asking it
   * to poll included), with the worker polling for it or not, on `instance` (whose first WARMUP_RUNS requests count
   * for neither).
   */
  recordSpin(model: string, spun: boolean, ms: number, instance: string): void {
    this.costs.record(model, spun ? 'spun' : 'unspun', ms, `${model}#spin@${instance}`);
  }

  /**
   * Producers (model node keys) whose last request stopped short of its end (an early exit, a failure): their next
   * request is not planned to have its worker run the next one (hostAhead.ts), whose registration would be undone unused.
   */
  readonly stoppedShort = new Set<string>();

  /**
   * Whether, in a run that has the engine to itself, the worker of the request before fused request `consumer` runs
   * it on its own copy of `consumer`'s model (hostAhead.ts) rather than it going through this thread to its own
   * worker: two hops and this thread's turn saved, but its compute on the producer's thread and CPU. Decided by what
   * each way measured (`recordHost`); hosted first while neither is measured.
   */
  hostAhead(consumer: string): boolean {
    return this.either(consumer, 'host', 'hosted', 'unhosted');
  }

  /**
   * One such request's time from its producer's last step's end to its reply on this thread, less its own compute
   * (hostAhead.ts says why), hosted or not, on `instance` (whose first WARMUP_RUNS requests count for neither).
   */
  recordHost(consumer: string, hosted: boolean, ms: number, instance: string): void {
    this.costs.record(consumer, hosted ? 'hosted' : 'unhosted', ms, `${consumer}#host@${instance}`);
  }

  /** Whether `model`'s request goes the `yes` way rather than the `no` one (`decide`); `yes` while neither is measured. */
  private either(model: string, choice: string, yes: Place, no: Place): boolean {
    const { costs } = this;
    return this.decide(`${model}#${choice}`, [
      { value: true, cost: costs.estimate(model, yes), sampledAt: costs.sampledAt(model, yes), allowed: true },
      { value: false, cost: costs.estimate(model, no), sampledAt: costs.sampledAt(model, no), allowed: true },
    ]);
  }

  private apart(node: string): Candidate<'inline' | 'op-worker'>[] {
    const { costs } = this;
    const worker = costs.estimate(node, 'op-worker');
    const inline = costs.estimate(node, 'inline');
    const fused = costs.estimate(node, 'fused');
    const elsewhereMs = worker === undefined ? fused : fused === undefined ? worker : Math.min(worker, fused);
    const quickElsewhere = elsewhereMs !== undefined && elsewhereMs <= LOOP_BLOCK_BUDGET_MS;
    const hopMs = costs.hopMs();
    return [
      {
        value: 'op-worker',
        cost: worker === undefined ? undefined : worker + (hopMs ?? 0),
        sampledAt: costs.sampledAt(node, 'op-worker'),
        // An op that runs inline in less than the hop alone cannot be cheaper in a worker: exploring there
        // would only cost a hop (for a stream's per-chunk op, one chunk in EXPLORE_EVERY a round trip late).
        allowed: inline === undefined || hopMs === undefined || inline >= hopMs,
      },
      {
        value: 'inline',
        cost: inline,
        sampledAt: costs.sampledAt(node, 'inline'),
        allowed: inline === undefined ? quickElsewhere : inline <= LOOP_BLOCK_BUDGET_MS,
        probe: quickElsewhere,
        proxy: elsewhereMs,
      },
    ];
  }

  /** `key`'s next decision among `candidates` (`pick`), exploring when its schedule says so (MAX_EXPLORE_GAP). */
  private decide<T>(key: string, candidates: Candidate<T>[]): T {
    const s = this.schedules.get(key) ?? { n: 0, due: EXPLORE_EVERY, gap: EXPLORE_EVERY, best: undefined };
    this.schedules.set(key, s); // set again when known: the most recently used is the last forgotten
    const explore = ++s.n >= s.due;
    if (explore) {
      const best = cheapest(candidates)?.value;
      s.gap = best !== undefined && best === s.best ? Math.min(2 * s.gap, MAX_EXPLORE_GAP) : EXPLORE_EVERY;
      s.best = best;
      s.due = s.n + s.gap;
    }
    return pick(candidates, explore);
  }
}
