import { fork, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import type { Socket } from 'node:net';

// Python stubs are started by a small helper process (stubSpawner.mjs), not by the server itself: starting a
// process forks the one that asks, and a fork copies the page tables of everything resident (~35 ms for the
// server at 850 MB, longer under load) on the thread that asks, so a repository load of a few python instances
// stalled every other client. The helper forks in a millisecond or two and hands the pipes over.

const SPAWNER = new URL('./stubSpawner.mjs', import.meta.url);

/**
 * What the server reads and writes of a started stub: its log pipes, fd 3 (frames to its model thread), fd 4
 * (frames from it) and fd 5 (frames it handles at once, while its model thread may be busy).
 */
export interface StubPipes {
  /** fd 1, when asked for. */
  stdout: Readable | null;
  stderr: Readable;
  toPy: Writable;
  fromPy: Readable;
  toPyAtOnce: Writable;
}

/**
 * A python process started through the helper. `kill` signals it directly; after its exit it does nothing (the
 * pid may be reused). An exit listener added after the exit still hears of it: the helper's messages can report
 * a start and an exit in one turn, before the starter has attached its listeners.
 */
export class StubChild {
  private exitInfo: [code: number | null, signal: NodeJS.Signals | null] | undefined;
  private readonly exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = [];

  constructor(
    readonly pid: number,
    readonly pipes: StubPipes,
  ) {}

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.exitInfo) return;
    try {
      process.kill(this.pid, signal);
    } catch {
      /* already gone: its exit message is on its way */
    }
  }

  /** Calls `listener` once the process has ended (on a later turn when it already has). */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void {
    const info = this.exitInfo;
    if (info) queueMicrotask(() => listener(...info));
    else this.exitListeners.push(listener);
  }

  /** The helper saw the process end: nothing more can be written to it (what it wrote is still read). */
  markExited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitInfo) return;
    this.exitInfo = [code, signal];
    this.pipes.toPy.destroy();
    this.pipes.toPyAtOnce.destroy();
    for (const l of this.exitListeners.splice(0)) l(code, signal);
  }
}

/** How to start one stub. */
export interface StubSpawn {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Pipe fd 1 (the model's prints); otherwise it is discarded. */
  stdout: boolean;
}

interface Starting {
  handles: Map<number, Readable | Writable>;
  /** fd 1 was asked for. */
  stdout: boolean;
  resolve: (c: StubChild) => void;
  reject: (err: Error) => void;
}

type SpawnerMessage =
  | { id: number; fd: number }
  | { id: number; pid: number }
  | { id: number; error: { message: string; code?: string } }
  | { id: number; exit: number | null; signal: NodeJS.Signals | null };

let spawner: ChildProcess | undefined;
let nextId = 1;
const starting = new Map<number, Starting>();
const running = new Map<number, StubChild>();

function helper(): ChildProcess {
  if (spawner) return spawner;
  // Without the server's loader flags (tsx): the helper is plain JavaScript and should stay small.
  // fd 0 is a pipe this process never writes: the helper sees it end when this process does, however it dies.
  const p = fork(SPAWNER, [], { execArgv: [], stdio: ['pipe', 'inherit', 'inherit', 'ipc'] });
  p.on('message', (m: SpawnerMessage, handle?: Readable | Writable) => onMessage(m, handle));
  p.on('exit', () => helperGone(p));
  p.on('error', () => helperGone(p));
  p.unref();
  p.channel?.unref();
  (p.stdin as Socket | null)?.unref();
  spawner = p;
  return p;
}

function onMessage(m: SpawnerMessage, handle?: Readable | Writable): void {
  if ('fd' in m) {
    const s = starting.get(m.id);
    if (s && handle) s.handles.set(m.fd, handle);
    else (handle as { destroy?: () => void } | undefined)?.destroy?.();
  } else if ('pid' in m) {
    const s = starting.get(m.id);
    if (!s) return;
    const h = s.handles;
    const child = new StubChild(m.pid, {
      stdout: s.stdout ? ((h.get(1) as Readable | undefined) ?? ended()) : null,
      stderr: (h.get(2) as Readable | undefined) ?? ended(),
      toPy: (h.get(3) as Writable | undefined) ?? discarding(),
      fromPy: (h.get(4) as Readable | undefined) ?? ended(),
      toPyAtOnce: (h.get(5) as Writable | undefined) ?? discarding(),
    });
    running.set(m.id, child);
    settle(m.id);
    s.resolve(child);
  } else if ('error' in m) {
    const s = starting.get(m.id);
    if (!s) return;
    settle(m.id);
    s.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
  } else if ('exit' in m) {
    const child = running.get(m.id);
    running.delete(m.id);
    holdOpen();
    child?.markExited(m.exit, m.signal);
  }
}

// A pipe that came without its handle (Node sends the message alone when the handle closed in the helper first) is
// read as ended and written to nowhere, so the stub's exit is reported as any other instead of throwing. The helper
// used to read the pipes it held, and the pipes of stubs that failed at once (a missing module) closed there before
// their turn to go; it leaves them unread now (stubSpawner.mjs), and this stays as the guard should one still not come.
const ended = (): Readable => Readable.from([]);
const discarding = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });

function settle(id: number): void {
  starting.delete(id);
  holdOpen();
}

/** Like a child process of its own, a stub starting or running keeps this process alive (the helper alone does not). */
function holdOpen(): void {
  if (starting.size + running.size > 0) spawner?.channel?.ref();
  else spawner?.channel?.unref();
}

/** The helper died (killed from outside): its stubs can no longer be watched, so end them as crashed. */
function helperGone(p: ChildProcess): void {
  if (spawner !== p) return;
  spawner = undefined;
  for (const [id, s] of starting) {
    starting.delete(id);
    s.reject(new Error('the process that starts python stubs exited'));
  }
  for (const [id, child] of running) {
    running.delete(id);
    child.kill('SIGKILL');
    child.markExited(null, 'SIGKILL');
  }
}

/**
 * Starts a python stub through the helper process and resolves with its pipes once it runs; rejects with the
 * spawn error (its `code`, e.g. ENOENT, kept) when it could not start.
 * @example const child = await startStub({ file: 'python3', args: ['-u', 'stub.py'], env, cwd, stdout: true })
 */
export function startStub(spec: StubSpawn): Promise<StubChild> {
  const p = helper();
  const id = nextId++;
  return new Promise<StubChild>((resolve, reject) => {
    starting.set(id, { handles: new Map(), stdout: spec.stdout, resolve, reject });
    holdOpen();
    p.send({ id, ...spec });
  });
}
