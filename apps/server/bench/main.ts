// `pnpm bench [--json] [--quick] [--blocks N] [--only ocr|fanout|lag|batching|vad|python|grpc] [--no-host-speed]`: measures the engine against the same onnxruntime calls made
// directly, against bare workers, bare python3 pipes and a bare grpc-js pair (its ceilings on this machine).
// Every comparison runs in N ≥ 3 blocks in which the engine and its ceiling alternate, each contender in a child
// process of its own (contenderProcess.ts, roles.ts); each metric is printed as the median over blocks with its
// min–max, beside its same-run ceiling. --json prints one JSON object on stdout: the medians under their metric
// names, then `ranges`, `usage`, `machine`, `vad_levels` and `host_speed`.
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { disableOnnxRuntimeTelemetry } from '../src/cli/onnxTelemetry.ts';
import { oldestBatchingBench } from './batching.ts';
import { type BenchContext, type HostName, benchEventLoopMode } from './context.ts';
import { availableCpus } from '../src/cpuBudget.ts';
import { ContenderProcess } from './contenderProcess.ts';
import { fanoutBench } from './fanout.ts';
import { grpcBench } from './grpc.ts';
import { HostSpeed, describeHostSpeed } from './hostSpeed.ts';
import { eventLoopLagBench } from './lag.ts';
import { ocrBench } from './ocr.ts';
import { pythonBench } from './python.ts';
import { BenchReport } from './report.ts';
import type { RoleOptions } from './roles.ts';
import { benchScratchDir } from './scratchDir.ts';
import { vadRampBench, vadThroughputBench } from './vad.ts';

const args = process.argv.slice(2);
const JSON_OUT = args.includes('--json');
const QUICK = args.includes('--quick');
const blocksArg = args.indexOf('--blocks');
const BLOCKS = Math.max(3, blocksArg >= 0 ? Number(args[blocksArg + 1]) || 3 : 3);
const onlyArg = args.indexOf('--only');
/** `--only NAME[,NAME]`: run just those scenarios (e.g. `--only vad` while working on streams). */
const ONLY = onlyArg >= 0 ? new Set((args[onlyArg + 1] ?? '').split(',')) : undefined;
const runs = (scenario: string) => !ONLY || ONLY.has(scenario);
/** `--no-host-speed`: no probe of the host's speed (between the OCR and fan-out trials, during the VAD ramp). */
const HOST_SPEED = !args.includes('--no-host-speed');
const log = (s: string) => (JSON_OUT ? process.stderr : process.stdout).write(`${s}\n`);
const ROLES = new URL('./roles.ts', import.meta.url);
/** The child processes each scenario's contenders run in (the python and grpc scenarios run in this process). */
const HOSTS: Record<string, HostName[]> = {
  ocr: ['engine', 'direct'],
  fanout: ['engine', 'direct', 'bare_a', 'bare_b'],
  lag: ['engine'],
  batching: ['engine', 'engine_b', 'direct'],
  vad: ['engine', 'direct'],
};

/** The CPUs this process may run on (`taskset`), as the kernel lists them. */
function cpuAffinity(): string {
  try {
    return /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const machine = {
    available_parallelism: availableParallelism(),
    cpu_affinity: cpuAffinity(),
    load_average_1m_at_start: loadavg()[0]!,
    node: process.version,
    blocks: BLOCKS,
    quick: QUICK,
    event_loop: benchEventLoopMode(),
    available_cpus: availableCpus(),
  };
  log(
    `bench: ${machine.available_parallelism} CPUs available (affinity ${machine.cpu_affinity}), event loop ${machine.event_loop}, load ${machine.load_average_1m_at_start.toFixed(1)}, node ${machine.node}, ${BLOCKS} blocks${QUICK ? ', quick' : ''}`,
  );
  disableOnnxRuntimeTelemetry();
  const report = new BenchReport(log);
  const hosts = new Map<HostName, Promise<ContenderProcess>>();
  const roleOf: Record<HostName, string> = {
    engine: 'engineRole',
    engine_b: 'engineRole',
    direct: 'directRole',
    bare_a: 'bareRole',
    bare_b: 'bareRole',
  };
  const options: RoleOptions = { quick: QUICK, blocks: BLOCKS };
  const host = (name: HostName) => {
    if (!hosts.has(name))
      hosts.set(name, ContenderProcess.start(name, { module: ROLES, name: roleOf[name] }, options, log));
    return hosts.get(name)!;
  };
  const ctx: BenchContext = { host, report, log, quick: QUICK, blocks: BLOCKS };
  try {
    // Every child the chosen scenarios need, started together and all ready before the first trial: a child still
    // booting would take CPU from another's trials.
    const t1 = performance.now();
    const needed = [
      ...new Set(
        Object.keys(HOSTS)
          .filter(runs)
          .flatMap((s) => HOSTS[s]!),
      ),
    ];
    await Promise.all(needed.map(host));
    if (needed.length > 0)
      log(`contender processes ${needed.join(', ')} ready in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    // The host's speed between the OCR and fan-out trials and during the VAD ramp, which its slow phases move
    // (hostSpeed.ts).
    if (HOST_SPEED && (runs('ocr') || runs('fanout') || runs('vad'))) ctx.probe = await HostSpeed.start(log);
    if (runs('ocr')) await ocrBench(ctx);
    if (runs('fanout')) await fanoutBench(ctx);
    if (runs('lag')) await eventLoopLagBench(ctx);
    if (runs('batching')) await oldestBatchingBench(ctx);
    if (runs('vad')) await vadThroughputBench(ctx);
    if (runs('vad')) await vadRampBench(ctx);
  } finally {
    ctx.probe?.close();
    await Promise.allSettled([...hosts.values()].map(async (h) => (await h).close()));
  }
  if (ctx.probe) reportHostSpeed(ctx.probe, report, log);
  if (runs('python')) {
    try {
      await pythonBench(ctx);
    } catch (err) {
      log(`python backend not measured: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (runs('grpc')) {
    try {
      await grpcBench(benchScratchDir('grpc-repo-'), ctx);
    } catch (err) {
      log(`grpc not measured: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  report.extra.machine = { ...machine, wall_s: (performance.now() - t0) / 1000 };
  report.print();
  log(`\nwall time ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(report.json())}\n`);
}

/** Keeps each CPU's probe times in the JSON (`host_speed`) and prints them. */
function reportHostSpeed(probe: HostSpeed, report: BenchReport, log: (line: string) => void): void {
  const cpus = probe.samples.summary();
  if (cpus.length === 0) return;
  report.extra.host_speed = cpus;
  log(`host speed between the OCR and fan-out trials and during the VAD ramp, ${describeHostSpeed(cpus)}`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
