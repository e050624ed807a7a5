import type { Frame } from './frames.ts';
import { PendingExecute } from './pendingExecute.ts';
import type { LogLevel, PyExecute, PyExecuteResult } from './pythonTypes.ts';

/**
 * The executes one instance has sent to its stub and not yet settled, by id: their `response` and `executed`
 * frames, their region ranges freed once the stub has copied the inputs, and the model's log lines passed to
 * the requests that are running.
 * @example const { id, p } = table.open(body, resolve, reject); table.executed({ id, error: null })
 */
export class ExecuteTable {
  private nextId = 1;
  private readonly pending = new Map<number, PendingExecute>();

  /**
   * @param freeRanges gives an execute's input ranges in the Node-to-stub region back.
   * @param occupied told `true` when the stub gets a request while it had none, `false` when it has none left.
   */
  constructor(
    private readonly freeRanges: (offsets: number[]) => void,
    private readonly occupied: (busy: boolean) => void = () => {},
  ) {}

  /** A new execute with its own id. */
  open(
    body: PyExecute,
    resolve: (r: PyExecuteResult) => void,
    reject: (e: Error) => void,
  ): { id: number; p: PendingExecute } {
    const id = this.nextId++;
    const p = new PendingExecute(body, resolve, reject);
    this.pending.set(id, p);
    if (this.pending.size === 1) this.occupied(true);
    return { id, p };
  }

  /** How many executes have not returned from `execute` yet. */
  get running(): number {
    let n = 0;
    for (const p of this.pending.values()) if (!p.returned) n++;
    return n;
  }

  has(id: number): boolean {
    return this.pending.has(id);
  }

  /** A `response` frame: one response of one of the execute's requests. */
  response(f: Frame): void {
    const id = Number(f.header.id);
    const p = this.pending.get(id);
    if (!p) return;
    p.response(f);
    this.maybeDone(id, p);
  }

  /** An `executed` frame: `execute` returned (or raised), so its inputs' ranges are free. */
  executed(h: Record<string, unknown>): void {
    const id = Number(h.id);
    const p = this.pending.get(id);
    if (!p) return;
    p.markExecuted(h.error as { message?: string; traceback?: string } | null, executeSpan(h.ns));
    this.freeInputs(p);
    p.freed?.();
    this.maybeDone(id, p);
  }

  /** Gives up on an execute whose requests are not all final (cancelled after `execute` returned): later responses are dropped. */
  drop(id: number, err: Error): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.settle(id, p);
    p.reject(err);
  }

  /** Fails every execute still pending (the process is gone). */
  failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      this.settle(id, p);
      p.reject(err);
    }
  }

  /** A line the model logged goes to each running request that listens, once per listener. */
  log(level: LogLevel, message: string, instance: string): void {
    const seen = new Set<unknown>();
    for (const p of this.pending.values()) {
      for (const r of p.body.requests) {
        if (r.onLog && !seen.has(r.onLog)) {
          seen.add(r.onLog);
          r.onLog(level, message, instance);
        }
      }
    }
  }

  private maybeDone(id: number, p: PendingExecute): void {
    if (!p.done) return;
    this.settle(id, p);
    p.finish();
  }

  /** The stub copies an execute's inputs before it runs it: once `executed` came, their region ranges are free. */
  private freeInputs(p: PendingExecute): void {
    this.freeRanges(p.placed);
    p.placed = [];
  }

  private settle(id: number, p: PendingExecute): void {
    if (this.pending.delete(id) && this.pending.size === 0) this.occupied(false);
    this.freeInputs(p);
    if (p.killTimer) clearTimeout(p.killTimer);
    if (p.onAbort) p.body.signal?.removeEventListener('abort', p.onAbort);
  }
}

/**
 * An `executed` frame's `ns`: when the model's `execute` began and returned (the stub's `time.monotonic_ns()`, the
 * clock `process.hrtime` reads), or nothing for anything else.
 */
function executeSpan(ns: unknown): [number, number] | undefined {
  if (!Array.isArray(ns) || ns.length !== 2) return undefined;
  const [a, b] = ns as unknown[];
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && (a as number) <= (b as number)
    ? [a as number, b as number]
    : undefined;
}
