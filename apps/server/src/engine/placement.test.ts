import { describe, expect, it } from 'vitest';
import { CostTable, WARMUP_RUNS } from './costTable.ts';
import { EXPLORE_EVERY, MAX_EXPLORE_GAP, LOOP_BLOCK_BUDGET_MS, pick, Placer, placementKey } from './placement.ts';

const c = <T>(value: T, cost: number | undefined, sampledAt: number, allowed = true) => ({
  value,
  cost,
  sampledAt,
  allowed,
});

/** `n` decisions of `decide`, as a string of their first letters. */
const decisions = (n: number, decide: () => string) => Array.from({ length: n }, () => decide()[0]).join('');

/** A place measured at `ms` (after the op's warm-up runs on its thread, which do not count). */
const measured = (p: Placer, node: string, place: 'inline' | 'op-worker' | 'fused', ms: number) => {
  for (let i = 0; i <= WARMUP_RUNS; i++) p.costs.record(node, place, ms, `${node}@${place}`);
};
const hop = (p: Placer, ms: number) => p.costs.recordHop(ms);

describe('pick', () => {
  it('takes the first allowed while none has a cost, then one without a cost only when its proxy beats the cheapest', () => {
    expect(pick([c('a', undefined, -1, false), c('b', undefined, -1), c('c', undefined, -1)], false)).toBe('b');
    expect(pick([c('a', 1, 1), c('b', undefined, -1), c('c', undefined, -1)], false)).toBe('a');
    expect(pick([c('a', 1, 1), { ...c('b', undefined, -1), proxy: 0.5 }], false)).toBe('b');
    expect(pick([c('a', 1, 1), { ...c('b', undefined, -1), proxy: 1 }], false)).toBe('a');
    expect(pick([c('a', 1, 1), { ...c('b', undefined, -1, false), proxy: 0.5 }], false)).toBe('a');
  });

  it('takes the cheapest allowed, and on an exploring decision the other allowed one sampled longest ago', () => {
    const cs = [c('a', 3, 5), c('b', 1, 9), c('c', 2, 7), c('d', 0.5, 1, false)];
    expect(pick(cs, false)).toBe('b');
    expect(pick(cs, true)).toBe('a');
  });

  it('falls back to the first candidate when none is allowed', () => {
    expect(pick([c('a', 1, 1, false), c('b', 0, 1, false)], false)).toBe('a');
  });
});

describe('CostTable', () => {
  it('estimates per node and place, and the hop, by the median of recent samples, not counting warm-up runs', () => {
    const t = new CostTable();
    expect(t.estimate('n', 'inline')).toBeUndefined();
    expect(t.sampledAt('n', 'inline')).toBe(-1);
    for (let i = 0; i < WARMUP_RUNS; i++) t.record('n', 'inline', 40, 'topk@main');
    expect(t.estimate('n', 'inline')).toBeUndefined();
    expect(t.sampledAt('n', 'inline')).toBe(WARMUP_RUNS);
    t.record('n', 'inline', 4, 'topk@main');
    expect(t.estimate('n', 'inline')).toBe(4);
    t.record('n', 'inline', 8, 'topk@main');
    expect(t.estimate('n', 'inline')).toBe(6);
    for (const ms of [50, 5, 5]) t.record('n', 'inline', ms, 'topk@main');
    expect(t.estimate('n', 'inline')).toBe(5);
    for (const ms of [7, 7, 7]) t.record('n', 'inline', ms, 'topk@main');
    expect(t.estimate('n', 'inline')).toBe(7);
    // The op warmed up on its thread for another node of it: its runs count at once.
    t.record('m', 'inline', 3, 'topk@main');
    expect(t.estimate('m', 'inline')).toBe(3);
    // A second instance of a model warms up too.
    for (let i = 0; i <= WARMUP_RUNS; i++) t.record('n', 'fused', 1, 'topk@det_0');
    t.record('n', 'fused', 30, 'topk@det_1');
    expect(t.estimate('n', 'fused')).toBe(1);
    expect(t.estimate('n', 'op-worker')).toBeUndefined();
    t.recordHop(2);
    expect(t.hopMs()).toBe(2);
    t.recordHop(-1);
    expect(t.hopMs()).toBe(1);
  });

  it('ignores samples that are not durations', () => {
    const t = new CostTable();
    for (let i = 0; i < WARMUP_RUNS; i++) t.record('n', 'inline', 1, 'topk@main');
    t.record('n', 'inline', Number.NaN, 'topk@main');
    t.record('n', 'inline', -1, 'topk@main');
    expect(t.estimate('n', 'inline')).toBeUndefined();
  });

  it('names nodes per graph', () => {
    expect(placementKey('ocr', 'crop')).not.toBe(placementKey('ocr2', 'crop'));
  });
});

describe('Placer.opPlace', () => {
  it('sends an op never measured to a worker, then tries it inline when its worker time fits the loop budget', () => {
    const p = new Placer();
    expect(p.opPlace('topk')).toBe('op-worker');
    measured(p, 'topk', 'op-worker', LOOP_BLOCK_BUDGET_MS / 4);
    hop(p, 0.5);
    expect(p.opPlace('topk')).toBe('inline');
  });

  it('never runs inline an op measured over the loop budget, wherever it was measured', () => {
    const p = new Placer();
    measured(p, 'db', 'op-worker', LOOP_BLOCK_BUDGET_MS * 3);
    hop(p, 50);
    expect(decisions(2 * EXPLORE_EVERY, () => p.opPlace('db'))).toBe('o'.repeat(2 * EXPLORE_EVERY));
    const q = new Placer();
    measured(q, 'db', 'inline', LOOP_BLOCK_BUDGET_MS * 3);
    measured(q, 'db', 'op-worker', LOOP_BLOCK_BUDGET_MS * 3);
    expect(q.opPlace('db')).toBe('op-worker');
  });

  it('decides by the hop this machine measured: the same op goes inline where hops are slow, to a worker where they are quick', () => {
    const opMs = { inline: LOOP_BLOCK_BUDGET_MS * 0.8, worker: LOOP_BLOCK_BUDGET_MS * 0.3 };
    const on = (hopMs: number) => {
      const p = new Placer();
      measured(p, 'crop', 'inline', opMs.inline);
      measured(p, 'crop', 'op-worker', opMs.worker);
      hop(p, hopMs);
      return p.opPlace('crop');
    };
    expect(on(LOOP_BLOCK_BUDGET_MS)).toBe('inline');
    expect(on(LOOP_BLOCK_BUDGET_MS * 0.1)).toBe('op-worker');
  });

  it('re-measures the other place every EXPLORE_EVERY-th decision, and follows a change', () => {
    const p = new Placer();
    measured(p, 'ctc', 'inline', 0.2);
    measured(p, 'ctc', 'op-worker', 0.05);
    hop(p, 0.18);
    const first = decisions(EXPLORE_EVERY, () => p.opPlace('ctc'));
    expect(first).toBe('i'.repeat(EXPLORE_EVERY - 1) + 'o');
    // The main thread got slow (other runs keep it busy): a few slow samples move the op to a worker.
    for (let i = 0; i < 8; i++) measured(p, 'ctc', 'inline', LOOP_BLOCK_BUDGET_MS * 0.95);
    hop(p, 0.1);
    expect(p.opPlace('ctc')).toBe('op-worker');
  });

  it('never sends to a worker an op that runs inline in less than the hop alone, until it gets slower than a hop', () => {
    const p = new Placer();
    measured(p, 'frame', 'inline', 0.01);
    measured(p, 'frame', 'op-worker', 0.005);
    hop(p, 0.5);
    expect(decisions(4 * EXPLORE_EVERY, () => p.opPlace('frame'))).toBe('i'.repeat(4 * EXPLORE_EVERY));
    for (let i = 0; i < 8; i++) measured(p, 'frame', 'inline', 0.6);
    expect(decisions(EXPLORE_EVERY, () => p.opPlace('frame'))).toContain('o');
  });
});

describe('Placer.opPlace after a cold first run', () => {
  it('re-probes inline an op quick in a worker though once slow inline, and takes it inline once measured quick', () => {
    const p = new Placer();
    measured(p, 'ctc', 'op-worker', LOOP_BLOCK_BUDGET_MS / 2);
    measured(p, 'ctc', 'inline', LOOP_BLOCK_BUDGET_MS * 5);
    measured(p, 'ctc', 'inline', LOOP_BLOCK_BUDGET_MS * 5);
    hop(p, LOOP_BLOCK_BUDGET_MS);
    expect(decisions(EXPLORE_EVERY, () => p.opPlace('ctc'))).toBe('o'.repeat(EXPLORE_EVERY - 1) + 'i');
    for (let i = 0; i < 10; i++) measured(p, 'ctc', 'inline', LOOP_BLOCK_BUDGET_MS / 4);
    expect(p.opPlace('ctc')).toBe('inline');
  });
});

describe('Placer exploration schedule', () => {
  /** The decisions (1-based) among the first `n` of op `node` that ran it somewhere other than `usual`. */
  const explored = (p: Placer, node: string, n: number, usual: string) =>
    Array.from({ length: n }, (_, i) => (p.opPlace(node) === usual ? 0 : i + 1)).filter((d) => d > 0);

  it('waits twice as long after each exploration that left the choice as it was, up to MAX_EXPLORE_GAP', () => {
    const p = new Placer();
    measured(p, 'ctc', 'inline', 0.2);
    measured(p, 'ctc', 'op-worker', 0.05);
    hop(p, 0.18);
    const gaps = [EXPLORE_EVERY, EXPLORE_EVERY, 2 * EXPLORE_EVERY, 4 * EXPLORE_EVERY, 8 * EXPLORE_EVERY];
    const capped = [...gaps.map((g) => Math.min(g, MAX_EXPLORE_GAP)), MAX_EXPLORE_GAP, MAX_EXPLORE_GAP];
    const at = capped.map((_, k) => capped.slice(0, k + 1).reduce((a, b) => a + b, 0));
    expect(explored(p, 'ctc', at.at(-1)!, 'inline')).toEqual(at);
  });

  it('starts again from EXPLORE_EVERY when an exploration finds another place cheapest', () => {
    const p = new Placer();
    measured(p, 'ctc', 'inline', 0.2);
    measured(p, 'ctc', 'op-worker', 0.05);
    hop(p, 0.18);
    expect(explored(p, 'ctc', 4 * EXPLORE_EVERY, 'inline')).toEqual([
      EXPLORE_EVERY,
      2 * EXPLORE_EVERY,
      4 * EXPLORE_EVERY,
    ]);
    // The hop got quick: the op worker is now cheapest (0.05 + 0.01 < 0.2).
    hop(p, 0.01);
    for (let i = 0; i < 5; i++) hop(p, 0.01);
    const next = explored(p, 'ctc', 8 * EXPLORE_EVERY, 'op-worker');
    // The op worker is the choice at once (by its cost, no exploration needed). The exploration already due (the
    // 128th decision, the 64th here) finds it cheapest where the one before found inline: the wait starts again.
    expect(next.slice(0, 3)).toEqual([4 * EXPLORE_EVERY, 5 * EXPLORE_EVERY, 7 * EXPLORE_EVERY]);
  });
});

describe('Placer.fuse', () => {
  it('fuses until the ops are measured apart on an exploring decision, then keeps the cheaper, re-probing the other', () => {
    const p = new Placer();
    expect(p.fuse(['pre'])).toBe(true);
    measured(p, 'pre', 'fused', 3);
    // Apart is unknown: tried on the EXPLORE_EVERY-th decision only (it would cost a hop until measured).
    const first = decisions(EXPLORE_EVERY - 1, () => (p.fuse(['pre']) ? 'fused' : 'apart'));
    expect(first).toBe('f'.repeat(EXPLORE_EVERY - 2) + 'a');
    measured(p, 'pre', 'op-worker', 1);
    hop(p, 0.5);
    // Apart: 1 ms + a 0.5 ms hop < 3 ms fused.
    expect(p.fuse(['pre'])).toBe(false);
    for (let i = 0; i < 5; i++) measured(p, 'pre', 'fused', 0.6);
    // Fused is now estimated under 1.5 ms: it wins, except on exploring decisions.
    const d = decisions(EXPLORE_EVERY, () => (p.fuse(['pre']) ? 'fused' : 'apart'));
    expect(d.split('').filter((x) => x === 'a')).toHaveLength(1);
    expect(d.indexOf('a')).toBe(EXPLORE_EVERY - 2);
  });

  it('weighs a unit of ops together: fused only when their sum fused is below their sum apart', () => {
    const p = new Placer();
    hop(p, 1);
    measured(p, 'pre', 'fused', 0.5);
    measured(p, 'post', 'fused', 0.5);
    measured(p, 'pre', 'inline', 0.2);
    measured(p, 'post', 'op-worker', 0.4);
    expect(p.fuse(['pre', 'post'])).toBe(true);
    const q = new Placer();
    hop(q, 0.1);
    measured(q, 'pre', 'fused', 0.5);
    measured(q, 'post', 'fused', 0.5);
    measured(q, 'pre', 'inline', 0.2);
    measured(q, 'post', 'op-worker', 0.4);
    expect(q.fuse(['pre', 'post'])).toBe(false);
  });

  it("once both choices' cost to their group is measured, decides by those, not by the ops' own times", () => {
    const p = new Placer();
    measured(p, 'pre', 'fused', 0.8);
    measured(p, 'pre', 'inline', 0.5); // the op alone is quicker on the main thread...
    expect(p.fuse(['pre'])).toBe(false);
    for (let i = 0; i <= WARMUP_RUNS; i++) {
      p.recordUnit(['pre'], true, 1.8); // ...but its group took 1.8 ms beyond the model fused
      p.recordUnit(['pre'], false, 3.2); // and 3.2 apart (its tensors handled on the main thread)
    }
    const d = decisions(EXPLORE_EVERY, () => (p.fuse(['pre']) ? 'fused' : 'apart'));
    expect(d.split('').filter((x) => x === 'a')).toHaveLength(1); // apart only on the exploring decision
    for (let i = 0; i < 5; i++) p.recordUnit(['pre'], false, 1.2);
    expect(p.fuse(['pre'])).toBe(false); // apart measured cheaper: apart
  });
});

describe('Placer.wakeAhead', () => {
  it('wakes ahead while nothing is measured, measures not waking on an exploring decision, and follows the cheaper hop', () => {
    const p = new Placer();
    const woke = () => (p.wakeAhead('g/det') ? 'w' : 'u');
    expect(woke()).toBe('w');
    // An instance's first WARMUP_RUNS requests count for neither choice.
    for (let i = 0; i < WARMUP_RUNS; i++) p.recordWake('g/det', true, 5, 'det_0');
    expect(p.costs.estimate('g/det', 'woken')).toBeUndefined();
    for (let i = 0; i < 3; i++) p.recordWake('g/det', true, 0.6, 'det_0');
    const d = decisions(EXPLORE_EVERY, woke);
    expect(d.split('').filter((x) => x === 'u')).toHaveLength(1); // the other choice, only when exploring
    for (let i = 0; i < 3; i++) p.recordWake('g/det', false, 0.4, 'det_0');
    expect(woke()).toBe('u'); // where the main thread's CPU wakes quickly the message only costs a turn
    for (let i = 0; i < 5; i++) p.recordWake('g/det', true, 0.3, 'det_1');
    expect(p.costs.estimate('g/det', 'woken')).toBe(0.6); // det_1's warm-up runs did not count
  });
});

describe('Placer.spinAhead', () => {
  it('polls while nothing is measured, measures sleeping on an exploring decision, and follows the shorter hop', () => {
    const p = new Placer();
    const spins = () => (p.spinAhead('g/det') ? 's' : 'z');
    expect(spins()).toBe('s');
    for (let i = 0; i < WARMUP_RUNS; i++) p.recordSpin('g/det', true, 5, 'det_0');
    expect(p.costs.estimate('g/det', 'spun')).toBeUndefined(); // an instance's warm-up counts for neither
    for (let i = 0; i < 3; i++) p.recordSpin('g/det', true, 0.3, 'det_0');
    const d = decisions(EXPLORE_EVERY, spins);
    expect(d.split('').filter((x) => x === 'z')).toHaveLength(1); // sleeping, only when exploring
    for (let i = 0; i < 3; i++) p.recordSpin('g/det', false, 0.2, 'det_0');
    expect(spins()).toBe('z'); // where a CPU wakes as quickly, polling only burns it
    for (let i = 0; i < 3; i++) p.recordSpin('g/det', true, 0.1, 'det_0');
    expect(spins()).toBe('s');
  });
});
