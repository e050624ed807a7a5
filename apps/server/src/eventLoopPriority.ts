import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { availableCpus } from './cpuBudget.ts';
import { pythonInterpreter } from './engine/backends/python/autoComplete.ts';

// The event loop's thread wakes for every request and every result a worker posts back, and sleeps in between;
// model workers (nice +5) keep every core busy while a run is under way. Under Linux's fair scheduler (EEVDF) a
// waking thread takes a CPU from a running one only when its virtual deadline is earlier: with the default slice
// (1.4 ms here) the event loop waited 2–5 ms for a CPU (the bench's `event_loop_lag_p99_ms`; server README,
// "Event-loop lag"). Two remedies, the stronger first:
// - SCHED_RR at the lowest real-time priority (1): the thread runs the moment it wakes, ahead of every fair thread.
//   SCHED_RESET_ON_FORK makes every thread and process it creates afterwards (model workers, Python stubs) start
//   fair again. Needs CAP_SYS_NICE (root) or an RLIMIT_RTPRIO of at least 1, and two CPUs or more: the loop can
//   then take at most one of them, and the workers keep the rest (the kernel keeps only ~5 % of a CPU for fair
//   threads under a busy real-time one).
// - A short slice (`sched_setattr`'s `sched_runtime` for SCHED_OTHER, Linux 6.12+), which any thread may ask for:
//   its deadline comes sooner, so it often preempts on wake-up, while its share (its weight) stays what it was.
// Node has no binding for either call, so a python3 (the one the Python backend uses) makes it, once.

/** The slice asked for where real-time is refused or not wanted: the kernel's smallest. */
export const EVENT_LOOP_SLICE_NS = 100_000;

/**
 * argv: tid, slice in ns, "rt" or "fair". Prints `realtime`, or `slice` and (when real-time was refused) why on a
 * second line. Only a fair policy (SCHED_OTHER, SCHED_BATCH) is changed: a thread someone made real-time or idle
 * is left as it is.
 */
const RAISE = `
import ctypes, os, platform, struct, sys
tid, slice_ns, want = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
policy = os.sched_getscheduler(tid)
if policy not in (os.SCHED_OTHER, os.SCHED_BATCH):
    sys.exit("its scheduling policy (%d) is not a fair one" % policy)
refused = ""
if want == "rt":
    try:
        os.sched_setscheduler(tid, os.SCHED_RR | os.SCHED_RESET_ON_FORK, os.sched_param(1))
        print("realtime")
        sys.exit(0)
    except OSError as e:  # EPERM without the privilege; EINVAL where a control group has no real-time budget
        refused = os.strerror(e.errno)
number = {"x86_64": 314, "aarch64": 274}.get(platform.machine())
if number is None:
    sys.exit("no sched_setattr number for " + platform.machine())
attr = struct.pack("IIQiIQQQII", 56, policy, 0, os.getpriority(os.PRIO_PROCESS, tid), 0, slice_ns, 0, 0, 0, 0)
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(number, tid, ctypes.create_string_buffer(attr, 56), 0) != 0:
    sys.exit(os.strerror(ctypes.get_errno()))
print("slice")
print(refused)
`;

/** What a thread got: real-time, a short slice (with why not real-time, where it was wanted), or neither (and why). */
export type ThreadPriority =
  { policy: 'realtime' } | { policy: 'slice'; notRealtime?: string } | { policy: 'unchanged'; why: string };

/** The slice the kernel keeps for thread `tid` (ns; a process's id names its main thread); undefined where /proc does not say. */
export async function threadSlice(tid: number): Promise<number | undefined> {
  const text = await readFile(`/proc/${tid}/sched`, 'utf8').catch(() => '');
  const m = /^se\.slice\s*:\s*(\d+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * Raises thread `tid` to SCHED_RR priority 1 (reset on fork) when `realtime` and the kernel allows it, else asks
 * for a slice of `sliceNs`; `python` is the interpreter that makes the call.
 * @example await raiseThread(process.pid, { python: 'python3', realtime: true }) // { policy: 'realtime' }
 */
export function raiseThread(
  tid: number,
  { python, realtime, sliceNs = EVENT_LOOP_SLICE_NS }: { python: string; realtime: boolean; sliceNs?: number },
): Promise<ThreadPriority> {
  if (process.platform !== 'linux')
    return Promise.resolve({ policy: 'unchanged', why: `not Linux (${process.platform})` });
  const args = ['-c', RAISE, String(tid), String(sliceNs), realtime ? 'rt' : 'fair'];
  return new Promise((resolve) =>
    execFile(python, args, { timeout: 10_000 }, (err, out, stderr) => {
      if (err) return resolve({ policy: 'unchanged', why: (stderr.trim() || err.message).split('\n').at(-1)! });
      const [got, refused] = out.split('\n');
      if (got === 'realtime') return resolve({ policy: 'realtime' });
      void threadSlice(tid).then((now) =>
        resolve(
          now === undefined || now === sliceNs
            ? { policy: 'slice', ...(refused ? { notRealtime: `real-time refused: ${refused}` } : {}) }
            : { policy: 'unchanged', why: `the kernel kept a slice of ${now} ns` },
        ),
      );
    }),
  );
}

/** One line for a log: what the event loop's thread got. */
export function describePriority(p: ThreadPriority): string {
  if (p.policy === 'realtime') return 'event loop: real-time (SCHED_RR 1), it wakes ahead of the model workers';
  if (p.policy === 'slice') {
    const why = p.notRealtime ? ` (${p.notRealtime})` : '';
    return `event loop: a ${EVENT_LOOP_SLICE_NS / 1000} µs scheduler slice${why}`;
  }
  return `event loop: default scheduling (${p.why})`;
}

/**
 * How the event loop's thread is scheduled: `realtime` (where there are two CPUs or more and the kernel allows it,
 * else `slice`), `slice`, or `off` (left alone).
 */
export const EVENT_LOOP_MODES = ['realtime', 'slice', 'off'] as const;
export type EventLoopMode = (typeof EVENT_LOOP_MODES)[number];

/**
 * Why fewer than two CPUs keep the fair policy: a real-time loop takes the CPU whenever it has work, and with one
 * CPU the workers then get little else (the bench's real-time VAD streams at 1 core: chunks ~0.9 s late from 25
 * streams on, the kernel's fair-task reserve about all the workers got; server README, "Kept (2026-12-03,
 * eighteenth session)").
 */
const underTwo = (cpus: number) =>
  `${cpus === 1 ? 'one CPU' : `${+cpus.toFixed(2)} CPUs`}: a real-time loop would starve the model workers`;

/**
 * What `mode` asks of the kernel where the process may use `cpus` CPUs (`availableCpus`): real-time or not (and
 * why not, where it was wanted); undefined for `off`.
 * @example eventLoopPlan('realtime', 1) // { realtime: false, notRealtime: 'one CPU: …' }
 */
export function eventLoopPlan(
  mode: EventLoopMode,
  cpus: number,
): { realtime: boolean; notRealtime?: string } | undefined {
  if (mode === 'off') return undefined;
  if (mode === 'slice') return { realtime: false };
  return cpus >= 2 ? { realtime: true } : { realtime: false, notRealtime: underTwo(cpus) };
}

let asked: Promise<ThreadPriority> | undefined;

/**
 * Raises this process's event-loop thread as `mode` says (`eventLoopPlan`, `raiseThread`), once per process; `cpus`
 * is how many this process may use (its affinity, or its control group's cap where lower). Nothing depends on it
 * but how soon the loop wakes. Threads and processes started before it keep their own scheduling.
 * @example console.error(describePriority(await raiseEventLoop('realtime')))
 */
export function raiseEventLoop(
  mode: EventLoopMode,
  { python = pythonInterpreter(), cpus = availableCpus() }: { python?: string; cpus?: number } = {},
): Promise<ThreadPriority> {
  const plan = eventLoopPlan(mode, cpus);
  asked ??= !plan
    ? Promise.resolve({ policy: 'unchanged', why: 'asked to leave it (--event-loop off)' })
    : raiseThread(process.pid, { python, realtime: plan.realtime }).then((p) =>
        p.policy === 'slice' && plan.notRealtime ? { ...p, notRealtime: plan.notRealtime } : p,
      );
  return asked;
}
