import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deadlines, RunCancel } from './cancel.ts';

describe('RunCancel', () => {
  it('calls each listener once, in order, with the reason set', () => {
    const c = new RunCancel();
    const seen: string[] = [];
    c.addEventListener('abort', () => seen.push(`a:${String(c.reason)}`));
    c.addEventListener('abort', () => seen.push(`b:${String(c.aborted)}`));
    c.abort('stop');
    c.abort('again');
    expect(seen).toEqual(['a:stop', 'b:true']);
    expect(c.reason).toBe('stop');
  });

  it('does not call a removed listener, nor one added after the abort', () => {
    const c = new RunCancel();
    const fn = vi.fn();
    c.addEventListener('abort', fn);
    c.removeEventListener('abort', fn);
    c.abort(new Error('x'));
    c.addEventListener('abort', fn);
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('Deadlines', () => {
  afterEach(() => vi.useRealTimers());

  it('fires each deadline at its time, in time order, on one timer', () => {
    vi.useFakeTimers();
    const d = new Deadlines(() => Date.now());
    const fired: string[] = [];
    d.add(300, () => fired.push('300'));
    d.add(100, () => fired.push('100'));
    d.add(200, () => fired.push('200'));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(99);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['100']);
    vi.advanceTimersByTime(200);
    expect(fired).toEqual(['100', '200', '300']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never fires a cleared deadline, and drops its timer once none is left', () => {
    vi.useFakeTimers();
    const d = new Deadlines(() => Date.now());
    const early = vi.fn();
    const late = vi.fn();
    const first = d.add(50, early);
    const second = d.add(80, late);
    d.remove(first);
    vi.advanceTimersByTime(60);
    expect(early).not.toHaveBeenCalled();
    d.remove(second);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(100);
    expect(late).not.toHaveBeenCalled();
  });

  it('fires a deadline added while another fires', () => {
    vi.useFakeTimers();
    const d = new Deadlines(() => Date.now());
    const fired: number[] = [];
    d.add(10, () => {
      fired.push(10);
      d.add(5, () => fired.push(15));
    });
    d.add(40, () => fired.push(40));
    vi.advanceTimersByTime(40);
    expect(fired).toEqual([10, 15, 40]);
  });
});
