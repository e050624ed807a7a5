// A contender in a child process of its own. Each side of a comparison (the engine, the direct loop, bare
// workers, a session called on whole batches) runs in its own process, as a loop a user writes would: sharing one
// process, each side's garbage was collected during the other's trials (one V8 heap) and their allocations
// shared one allocator. The bench's process only orchestrates: it asks one child for a trial, waits for its
// reply, then asks the next; a child between trials waits on its IPC channel and costs nothing.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Contender, SelfTimed } from './measure.ts';
import type { TrialUsage } from './usage.ts';

/** One trial or call of a role; `block` as in `Contender.run` (-1: warm-up, or a call outside the blocks). */
export type Task = (block: number) => Promise<unknown>;

/** What a role sets up in its process: its tasks by name, and how to close them. */
export interface Hosted {
  tasks: Record<string, Task>;
  close(): Promise<void>;
  /** Count the process's descendants (python instances) in each trial's usage. */
  countChildren?: boolean;
}

/** Sets up a child process's side of the bench from JSON `options`; `log` prints through the bench's log. */
export type Role<O = never> = (options: O, log: (line: string) => void) => Promise<Hosted>;

/** Where a role is: a module (loaded by URL in the child) and the name it exports the role under. */
export interface RoleRef {
  module: URL;
  name: string;
}

export type ToChild = { type: 'task'; id: number; task: string; block: number; measure: boolean } | { type: 'close' };
export type FromChild =
  | { type: 'ready' }
  | { type: 'log'; line: string }
  | { type: 'done'; id: number; value?: unknown; ms?: number; usage?: TrialUsage }
  | { type: 'failed'; id?: number; error: string };

const BOOT = fileURLToPath(new URL('./contenderBoot.mjs', import.meta.url));

/**
 * A child process running one role's tasks.
 * @example
 * const engine = await ContenderProcess.start('engine', { module: ROLES, name: 'engineRole' }, {}, console.log);
 * const m = await measureBlocks([engine.contender('ocr_engine'), direct.contender('ocr_direct')], opts);
 * await engine.close();
 */
export class ContenderProcess {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (m: FromChild) => void; reject: (e: Error) => void }>();
  private exited: Error | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly label: string,
  ) {
    child.on('message', (m: FromChild) => {
      if (m.type !== 'done' && m.type !== 'failed') return;
      const p = this.pending.get(m.id ?? -1);
      this.pending.delete(m.id ?? -1);
      if (m.type === 'done') p?.resolve(m);
      else p?.reject(new Error(`${label}: ${m.error}`));
    });
    child.once('exit', (code, signal) => {
      this.exited = new Error(`contender process ${label} exited (${signal ?? `code ${code}`})`);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
    });
  }

  /** Forks a child, sets `role` up there with `options` and resolves once it is ready (rejects if setting up fails). */
  static async start<O>(
    label: string,
    role: RoleRef,
    options: O,
    log: (line: string) => void,
  ): Promise<ContenderProcess> {
    // The child's stdout goes to this process's stderr: `--json` keeps stdout for the one JSON object.
    const child = fork(BOOT, [role.module.href, role.name, JSON.stringify(options)], {
      execArgv: [],
      stdio: ['ignore', 2, 'inherit', 'ipc'],
    });
    child.on('message', (m: FromChild) => {
      if (m.type === 'log') log(m.line);
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: FromChild) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'failed' && m.id === undefined) reject(new Error(`${label}: ${m.error}`));
        else return;
        child.off('message', onMessage);
      };
      child.on('message', onMessage);
      child.once('exit', (code, signal) =>
        reject(new Error(`contender process ${label} exited while starting (${signal ?? `code ${code}`})`)),
      );
      child.once('error', reject);
    });
    return new ContenderProcess(child, label);
  }

  /** The child's process id. */
  get pid(): number {
    return this.child.pid!;
  }

  private send(task: string, block: number, measure: boolean): Promise<FromChild & { type: 'done' }> {
    if (this.exited) return Promise.reject(this.exited);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (m: FromChild) => void, reject });
      this.child.send({ type: 'task', id, task, block, measure } satisfies ToChild);
    });
  }

  /** The contender `name` (the child's task of that name): each trial is timed, and its usage counted, in the child. */
  contender(name: string, requests?: number): Contender {
    return {
      name,
      requests,
      run: async (block): Promise<SelfTimed> => {
        const r = await this.send(name, block, true);
        return { selfTimedMs: r.ms!, usage: r.usage };
      },
    };
  }

  /** Runs the child's task `task` untimed and resolves with what it returned (structured-clone data). */
  async call<T>(task: string, block = -1): Promise<T> {
    return (await this.send(task, block, false)).value as T;
  }

  /** Asks the child to close its role and exit; resolves once it has (killing it if it has not within 10 s). */
  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ type: 'close' } satisfies ToChild);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
}
