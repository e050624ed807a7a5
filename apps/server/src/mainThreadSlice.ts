import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { pythonInterpreter } from './engine/backends/python/autoComplete.ts';

// The event loop's thread wakes for every request and every result a worker posts back, and sleeps in between;
// model workers (nice +5) keep every core busy while a run is under way. Linux's EEVDF scheduler lets a waking
// thread take a CPU from a running one only when its virtual deadline is earlier, which with the default slice
// (1.4 ms here) it often is not: the event loop then waited 2–5 ms for a CPU (the bench's `event_loop_lag_p99_ms`,
// 70–80 % of its late ticks; server README, "Event-loop lag"). A thread may ask for a shorter slice
// (`sched_setattr`'s `sched_runtime` for SCHED_OTHER, Linux 6.12+): its deadline comes sooner, so it preempts on
// wake-up, while its share of the CPU (its weight, from its nice value) stays what it was. Node has no binding for
// the call, so a python3 (the one the Python backend uses) makes it for this process's main thread, once.

/** The slice asked for the event loop's thread: the kernel's smallest. */
export const MAIN_THREAD_SLICE_NS = 100_000;

/**
 * Calls `sched_setattr(tid, {policy and nice kept, sched_runtime = slice})`; argv: tid, slice in ns. Only a fair
 * policy (SCHED_OTHER, SCHED_BATCH) has such a slice; a thread someone made real-time or idle is left as it is.
 */
const SET_SLICE = `
import ctypes, os, platform, struct, sys
number = {"x86_64": 314, "aarch64": 274}.get(platform.machine())
if number is None:
    sys.exit("no sched_setattr number for " + platform.machine())
tid, slice_ns = int(sys.argv[1]), int(sys.argv[2])
policy = os.sched_getscheduler(tid)
if policy not in (os.SCHED_OTHER, os.SCHED_BATCH):
    sys.exit("its scheduling policy (%d) is not a fair one" % policy)
attr = struct.pack("IIQiIQQQII", 56, policy, 0, os.getpriority(os.PRIO_PROCESS, tid), 0, slice_ns, 0, 0, 0, 0)
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(number, tid, ctypes.create_string_buffer(attr, 56), 0) != 0:
    sys.exit(os.strerror(ctypes.get_errno()))
`;

/** The slice the kernel keeps for thread `tid` (ns; a process's id names its main thread); undefined where /proc does not say. */
export async function threadSlice(tid: number): Promise<number | undefined> {
  const text = await readFile(`/proc/${tid}/sched`, 'utf8').catch(() => '');
  const m = /^se\.slice\s*:\s*(\d+)/m.exec(text);
  return m ? Number(m[1]) : undefined;
}

/**
 * Asks Linux for a scheduler slice of `sliceNs` for thread `tid`. Resolves undefined when the kernel has it,
 * else why not (not Linux, no python3, a kernel that refuses or ignores it: before 6.12 only deadline tasks had one).
 * @example await setThreadSlice(process.pid, MAIN_THREAD_SLICE_NS, 'python3')
 */
export function setThreadSlice(tid: number, sliceNs: number, python: string): Promise<string | undefined> {
  if (process.platform !== 'linux') return Promise.resolve(`not Linux (${process.platform})`);
  return new Promise((resolve) =>
    execFile(python, ['-c', SET_SLICE, String(tid), String(sliceNs)], { timeout: 10_000 }, (err, _out, stderr) => {
      if (err) return resolve((stderr.trim() || err.message).split('\n').at(-1));
      void threadSlice(tid).then((now) =>
        resolve(now === undefined || now === sliceNs ? undefined : `the kernel kept a slice of ${now} ns`),
      );
    }),
  );
}

let asked: Promise<string | undefined> | undefined;

/**
 * Asks for a short scheduler slice for this process's event-loop thread, once per process; resolves as
 * `setThreadSlice`. Nothing depends on it but how soon the loop wakes.
 * @example const why = await shortenMainThreadSlice(); if (why) log(`event loop keeps its slice: ${why}`)
 */
export function shortenMainThreadSlice(python = pythonInterpreter()): Promise<string | undefined> {
  asked ??= setThreadSlice(process.pid, MAIN_THREAD_SLICE_NS, python);
  return asked;
}
