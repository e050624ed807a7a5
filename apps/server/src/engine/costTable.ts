// What the engine measured things cost here (placement.ts decides from it): per node and place, the median of
// recent samples, and the worker round trip.

/**
 * The places a cost is measured for: an op node's compute inline, in an op worker or fused into its model's
 * request; for a fusion unit (`unitKey`), what each choice cost its group ('fused', 'apart': `Placer.recordUnit`);
 * and for a model node's fused request, its reply's hop with and without waking the main thread ahead ('woken',
 * 'unwoken': `Placer.recordWake`), and for a run's first request of a model, its way from the run's decision to its
 * worker with and without the worker polling for it ('spun', 'unspun': `Placer.recordSpin`); and for a fused request
 * that reads another's outputs, its way from its producer's end to its reply with the producer's worker running it or
 * not ('hosted', 'unhosted': `Placer.recordHost`), beside each fused request's compute ('chain').
 */
export type Place =
  | 'inline'
  | 'op-worker'
  | 'fused'
  | 'apart'
  | 'woken'
  | 'unwoken'
  | 'spun'
  | 'unspun'
  | 'hosted'
  | 'unhosted'
  /** A fused request's compute, its steps summed (which of a node's readers is hosted: hostAhead.ts). */
  | 'chain';

/**
 * Samples behind an estimate: their median, so one run descheduled by other load on the machine (tens of
 * ms on a busy VM) does not move an op, while three slow runs of five do.
 */
const WINDOW = 5;

/** Nodes (and op threads) remembered; past this the oldest is forgotten (clients can send any number of inline graphs). */
const MAX_NODES = 1024;

/** A Map that forgets its least recently set entry past MAX_NODES. */
export class Recent<V> {
  private readonly m = new Map<string, V>();
  /** The key set last: setting it again needs no reordering (a stream's one op node, chunk after chunk). */
  private newest: string | undefined;

  get(key: string): V | undefined {
    return this.m.get(key);
  }

  set(key: string, value: V): void {
    if (key !== this.newest) {
      this.m.delete(key);
      this.newest = key;
    }
    this.m.set(key, value);
    if (this.m.size > MAX_NODES) this.m.delete(this.m.keys().next().value!);
  }
}

interface Estimate {
  /** The last WINDOW samples, oldest first (empty while the only runs were warm-ups). */
  recent: number[];
  ms: number;
  /** The table's tick when last run there, warm-ups included. */
  at: number;
}

/**
 * Runs of an op on a thread before its times count: V8 compiles and optimises the op's code in each
 * thread separately, and the op reads its files there. Measured here: the first 2–5 runs of
 * preprocess, DB and CTC in a worker took 4–35 ms, later ones ~1 ms.
 */
export const WARMUP_RUNS = 5;

/**
 * Running estimates (medians of recent samples) of what things cost here: an op node's run time in each
 * place, and the latency of a round trip to a worker thread (a hop: request to reply, less queueing and
 * compute). Keys name a graph node (`placementKey`): a node sees inputs of about the same size run after
 * run. An op's first runs on each thread do not count (WARMUP_RUNS).
 * @example for (let i = 0; i <= WARMUP_RUNS; i++) t.record('ocr/ctc', 'inline', 0.4, 'ctc_decode@main'); t.estimate('ocr/ctc', 'inline') // 0.4
 */
export class CostTable {
  private readonly byNode = new Recent<Map<Place, Estimate>>();
  /** Runs so far per op and thread ('ctc_decode@rec_0'), up to WARMUP_RUNS. */
  private readonly warm = new Recent<number>();
  private hop: Estimate | undefined;
  private tick = 0;

  /**
   * One measured run of `node` in `place`, in ms of compute; `warmKey` names the op's code on the thread
   * that ran it ('ctc_decode@rec_0'): its first WARMUP_RUNS runs there do not count.
   */
  record(node: string, place: Place, ms: number, warmKey: string): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    const m = this.byNode.get(node) ?? new Map<Place, Estimate>();
    this.byNode.set(node, m);
    const prev = m.get(place);
    const at = ++this.tick;
    const runs = this.warm.get(warmKey) ?? 0;
    if (runs < WARMUP_RUNS) {
      this.warm.set(warmKey, runs + 1);
      if (prev) prev.at = at;
      else m.set(place, { recent: [], ms: 0, at });
      return;
    }
    if (prev) blend(prev, ms, at);
    else m.set(place, blend({ recent: [], ms: 0, at }, ms, at));
  }

  /** One measured worker round trip: its latency less the worker's queueing and compute. */
  recordHop(ms: number): void {
    if (!Number.isFinite(ms)) return;
    this.hop = blend(this.hop ?? { recent: [], ms: 0, at: 0 }, Math.max(0, ms), ++this.tick);
  }

  /** The estimate, or undefined before a run that counts. */
  estimate(node: string, place: Place): number | undefined {
    return settled(this.byNode.get(node)?.get(place));
  }

  /** When `node` last ran in `place` (a tick of this table), or -1 never. */
  sampledAt(node: string, place: Place): number {
    return this.byNode.get(node)?.get(place)?.at ?? -1;
  }

  /** The estimated worker round trip, or undefined before the first. */
  hopMs(): number | undefined {
    return settled(this.hop);
  }
}

function settled(e: Estimate | undefined): number | undefined {
  return e && e.recent.length > 0 ? e.ms : undefined;
}

/** `e` with sample `ms` added (its oldest dropped past WINDOW), updated in place: an inline op of a stream records one per chunk. */
function blend(e: Estimate, ms: number, at: number): Estimate {
  if (e.recent.length >= WINDOW) e.recent.shift();
  e.recent.push(ms);
  e.ms = median(e.recent);
  e.at = at;
  return e;
}

/** Scratch for `median` (one thread, never re-entered). */
const sorted: number[] = [];

function median(xs: number[]): number {
  // An insertion sort of a copy: Array#sort with a comparator allocates ~1 KB of work arrays per call.
  const s = sorted;
  s.length = 0;
  for (const x of xs) s.push(x);
  for (let i = 1; i < s.length; i++) {
    const v = s[i]!;
    let j = i - 1;
    for (; j >= 0 && s[j]! > v; j--) s[j + 1] = s[j]!;
    s[j + 1] = v;
  }
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
