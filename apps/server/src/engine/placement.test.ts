import { describe, expect, it } from 'vitest';
import { CostTable, EXPLORE_EVERY, LOOP_BLOCK_BUDGET_MS, pick, Placer, placementKey } from './placement.ts';

const c = <T>(value: T, cost: number | undefined, sampledAt: number, allowed = true) => ({
  value,
  cost,
  sampledAt,
  allowed,
});

/** `n` decisions of `decide`, as a string of their first letters. */
const decisions = (n: number, decide: () => string) => Array.from({ length: n }, () => decide()[0]).join('');

describe('pick', () => {
  it('tries an allowed candidate never measured first, in the order given', () => {
    expect(pick([c('a', 1, 1), c('b', undefined, -1), c('c', undefined, -1)], 1)).toBe('b');
    expect(pick([c('a', 1, 1), c('b', undefined, -1, false)], 1)).toBe('a');
  });

  it('takes the cheapest allowed, and on every EXPLORE_EVERY-th decision the other sampled longest ago', () => {
    const cs = [c('a', 3, 5), c('b', 1, 9), c('c', 2, 7), c('d', 0.5, 1, false)];
    expect(pick(cs, 1)).toBe('b');
    expect(pick(cs, EXPLORE_EVERY - 1)).toBe('b');
    expect(pick(cs, EXPLORE_EVERY)).toBe('a');
    expect(pick(cs, 2 * EXPLORE_EVERY)).toBe('a');
  });

  it('falls back to the first candidate when none is allowed', () => {
    expect(pick([c('a', 1, 1, false), c('b', 0, 1, false)], 1)).toBe('a');
  });
});

describe('CostTable', () => {
  it('keeps an exponentially weighted estimate per node and place, and of the hop', () => {
    const t = new CostTable();
    expect(t.estimate('n', 'inline')).toBeUndefined();
    expect(t.sampledAt('n', 'inline')).toBe(-1);
    t.record('n', 'inline', 4);
    expect(t.estimate('n', 'inline')).toBe(4);
    t.record('n', 'inline', 8);
    expect(t.estimate('n', 'inline')).toBe(5);
    expect(t.estimate('n', 'op-worker')).toBeUndefined();
    t.recordHop(2);
    t.recordHop(-1);
    expect(t.hopMs()).toBe(1.5);
    expect(t.sampledAt('n', 'inline')).toBe(2);
  });

  it('ignores samples that are not durations', () => {
    const t = new CostTable();
    t.record('n', 'inline', Number.NaN);
    t.record('n', 'inline', -1);
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
    p.costs.record('topk', 'op-worker', LOOP_BLOCK_BUDGET_MS / 4);
    p.costs.recordHop(0.5);
    expect(p.opPlace('topk')).toBe('inline');
  });

  it('never runs inline an op measured over the loop budget, wherever it was measured', () => {
    const p = new Placer();
    p.costs.record('db', 'op-worker', LOOP_BLOCK_BUDGET_MS * 3);
    p.costs.recordHop(50);
    expect(decisions(2 * EXPLORE_EVERY, () => p.opPlace('db'))).toBe('o'.repeat(2 * EXPLORE_EVERY));
    const q = new Placer();
    q.costs.record('db', 'inline', LOOP_BLOCK_BUDGET_MS * 3);
    q.costs.record('db', 'op-worker', LOOP_BLOCK_BUDGET_MS * 3);
    expect(q.opPlace('db')).toBe('op-worker');
  });

  it('decides by the hop this machine measured: the same op goes inline where hops are slow, to a worker where they are quick', () => {
    const opMs = { inline: LOOP_BLOCK_BUDGET_MS * 0.8, worker: LOOP_BLOCK_BUDGET_MS * 0.3 };
    const on = (hopMs: number) => {
      const p = new Placer();
      p.costs.record('crop', 'inline', opMs.inline);
      p.costs.record('crop', 'op-worker', opMs.worker);
      p.costs.recordHop(hopMs);
      return p.opPlace('crop');
    };
    expect(on(LOOP_BLOCK_BUDGET_MS)).toBe('inline');
    expect(on(LOOP_BLOCK_BUDGET_MS * 0.1)).toBe('op-worker');
  });

  it('re-measures the other place every EXPLORE_EVERY-th decision, and follows a change', () => {
    const p = new Placer();
    p.costs.record('ctc', 'inline', 0.2);
    p.costs.record('ctc', 'op-worker', 0.2);
    p.costs.recordHop(0.6);
    const first = decisions(EXPLORE_EVERY, () => p.opPlace('ctc'));
    expect(first).toBe('i'.repeat(EXPLORE_EVERY - 1) + 'o');
    // The main thread got slow (other runs keep it busy): a few slow samples move the op to a worker.
    for (let i = 0; i < 8; i++) p.costs.record('ctc', 'inline', LOOP_BLOCK_BUDGET_MS * 0.95);
    p.costs.recordHop(0.1);
    expect(p.opPlace('ctc')).toBe('op-worker');
  });
});

describe('Placer.fuse', () => {
  it('fuses first, then measures the ops apart, then keeps the cheaper with periodic re-probing', () => {
    const p = new Placer();
    expect(p.fuse(['pre'])).toBe(true);
    p.costs.record('pre', 'fused', 3);
    expect(p.fuse(['pre'])).toBe(false);
    p.costs.record('pre', 'op-worker', 1);
    p.costs.recordHop(0.5);
    // Apart: 1 ms + a 0.5 ms hop < 3 ms fused.
    expect(p.fuse(['pre'])).toBe(false);
    p.costs.record('pre', 'fused', 0.6);
    p.costs.record('pre', 'fused', 0.6);
    p.costs.record('pre', 'fused', 0.6);
    p.costs.record('pre', 'fused', 0.6);
    p.costs.record('pre', 'fused', 0.6);
    p.costs.record('pre', 'fused', 0.6);
    // Fused is now estimated under 1.5 ms: it wins, except on exploring decisions.
    const d = decisions(EXPLORE_EVERY, () => (p.fuse(['pre']) ? 'fused' : 'apart'));
    expect(d.split('').filter((x) => x === 'a')).toHaveLength(1);
    expect(d.indexOf('a')).toBe(EXPLORE_EVERY - 4);
  });

  it('weighs a unit of ops together: fused only when their sum fused is below their sum apart', () => {
    const p = new Placer();
    p.costs.recordHop(1);
    p.costs.record('pre', 'fused', 0.5);
    p.costs.record('post', 'fused', 0.5);
    p.costs.record('pre', 'inline', 0.2);
    p.costs.record('post', 'op-worker', 0.4);
    expect(p.fuse(['pre', 'post'])).toBe(true);
    const q = new Placer();
    q.costs.recordHop(0.1);
    q.costs.record('pre', 'fused', 0.5);
    q.costs.record('post', 'fused', 0.5);
    q.costs.record('pre', 'inline', 0.2);
    q.costs.record('post', 'op-worker', 0.4);
    expect(q.fuse(['pre', 'post'])).toBe(false);
  });
});
