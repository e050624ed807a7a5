// A preload for a studio under test (`node --import ./turnMonitor.mjs apps/server/bin/ensemble-studio.mjs …`):
// measures the main thread's event-loop turns and appends every long one to the file named by STUDIO_TURN_LOG, one
// JSON line each: { endMs, wallMs, cpuMs, endUs } (endMs: Date.now() when the turn was seen to end, so another
// process can place it; endUs: the monotonic clock in µs, the clock of a --cpu-prof profile's sample times).
//
// How: a 1 ms interval timer reads the main thread's own CPU time (/proc/self/task/<pid>/schedstat, first field, ns;
// process.cpuUsage() would count the ONNX and body workers too, and Node 20 has no process.threadCpuUsage()) at each
// tick. Timers run once per loop iteration, so the span between two ticks holds one iteration (more when the loop
// idles): its CPU is what the thread did in that turn, whatever the machine's load made of its wall time. A span is
// logged when its CPU or its wall time passes STUDIO_TURN_MIN_MS (default 10), or when code was generated in it:
// `generated` counts the functions built from source on the main thread (the global `Function`, which protobufjs's
// code generation calls), a count that the machine's load cannot change.
import { appendFileSync, readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const log = process.env.STUDIO_TURN_LOG;
const minMs = Number(process.env.STUDIO_TURN_MIN_MS ?? 10);
const path = `/proc/self/task/${process.pid}/schedstat`;

/** The main thread's CPU time in ms. */
function threadCpuMs() {
  return Number(readFileSync(path, 'latin1').split(' ', 1)[0]) / 1e6;
}

// A preload runs in every worker thread too (they inherit execArgv): only the main thread's loop is measured.
if (log && isMainThread) {
  let generated = 0;
  const original = globalThis.Function;
  globalThis.Function = new Proxy(original, {
    apply: (target, self, args) => (generated++, Reflect.apply(target, self, args)),
    construct: (target, args, newTarget) => (
      generated++,
      Reflect.construct(target, args, newTarget === globalThis.Function ? target : newTarget)
    ),
  });
  let lastWall = performance.now();
  let lastCpu = threadCpuMs();
  const tick = () => {
    const wall = performance.now();
    const cpu = threadCpuMs();
    const wallMs = wall - lastWall;
    const cpuMs = cpu - lastCpu;
    if (cpuMs >= minMs || wallMs >= minMs || generated > 0) {
      const line = {
        generated,
        endMs: Date.now(),
        wallMs: Math.round(wallMs * 10) / 10,
        cpuMs: Math.round(cpuMs * 10) / 10,
        endUs: Number(process.hrtime.bigint() / 1000n),
      };
      appendFileSync(log, `${JSON.stringify(line)}\n`);
      generated = 0;
    }
    // Measured after the append, so the monitor's own writing is not counted in the next span.
    lastWall = performance.now();
    lastCpu = threadCpuMs();
  };
  setInterval(tick, 1).unref();
}
