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

  it('never fires a cleared deadline, and its timer stops holding the process once none is left', () => {
    vi.useFakeTimers();
    const made = vi.spyOn(globalThis, 'setTimeout');
    const d = new Deadlines(() => Date.now());
    const early = vi.fn();
    const late = vi.fn();
    const first = d.add(50, early);
    const second = d.add(80, late);
    const timer = () => made.mock.results.at(-1)!.value as NodeJS.Timeout;
    d.remove(first);
    vi.advanceTimersByTime(60); // the timer fires for `first`'s time and re-arms for `second`
    expect(early).not.toHaveBeenCalled();
    expect(timer().hasRef()).toBe(true);
    d.remove(second);
    expect(timer().hasRef()).toBe(false);
    vi.advanceTimersByTime(100);
    expect(late).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('runs one after another share one timer, which holds the process only while a deadline is pending', () => {
    vi.useFakeTimers();
    const made = vi.spyOn(globalThis, 'setTimeout');
    const d = new Deadlines(() => Date.now());
    const fire = vi.fn();
    for (let run = 0; run < 5; run++) {
      const deadline = d.add(1000, fire);
      expect((made.mock.results[0]!.value as NodeJS.Timeout).hasRef()).toBe(true);
      vi.advanceTimersByTime(10);
      d.remove(deadline);
      expect((made.mock.results[0]!.value as NodeJS.Timeout).hasRef()).toBe(false);
    }
    expect(made).toHaveBeenCalledTimes(1);
    // Armed for the first run's deadline, it fires then, finds the pending one not due, and re-arms for it.
    const last = d.add(1000, fire);
    vi.advanceTimersByTime(960);
    expect(fire).not.toHaveBeenCalled();
    expect(made).toHaveBeenCalledTimes(2);
    vi.advanceTimersByTime(40);
    expect(fire).toHaveBeenCalledTimes(1);
    d.remove(last);
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
