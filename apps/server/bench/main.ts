// `pnpm bench [--json] [--quick]`: measures the engine against the same onnxruntime calls made directly,
// and the Python backend's costs. Every number is a median over repeated trials, or a ratio of medians.
import { execFileSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { disableOnnxRuntimeTelemetry } from '../src/cli/onnxTelemetry.ts';
import { Engine } from '../src/engine/index.ts';
import { writeEngineRepository } from '../src/testing/engineFixtureRepository.ts';
import { branchesGraph, fanoutGraph, ocrGraph, singleModelGraph } from '../src/testing/engineGraphs.ts';
import { SYNTHETIC } from '../src/onnx/synthetic.ts';
import { directBranches, directFanout, directOcr, directSessions } from './direct.ts';
import { rawWorkerPair } from './rawWorkers.ts';
import { grpcBench } from './grpc.ts';
import { pythonBench } from './python.ts';
import { benchScratchDir } from './scratchDir.ts';
import { vadClosedLoop, vadDirectBatched, vadLevel } from './vad.ts';

const JSON_OUT = process.argv.includes('--json');
const QUICK = process.argv.includes('--quick');
const TRIALS = QUICK ? 5 : 15;
const log = (s: string) => (JSON_OUT ? process.stderr : process.stdout).write(`${s}\n`);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const now = () => performance.now();

/** Times each of `fns` in turn, round after round (so drift hits them all), returning the median of each. */
async function interleaved(fns: (() => Promise<unknown>)[], trials = TRIALS): Promise<number[]> {
  for (const f of fns) await f();
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < trials; i++) {
    for (const [k, f] of fns.entries()) {
      const t = now();
      await f();
      times[k]!.push(now() - t);
    }
  }
  return times.map(median);
}

/** Times `a` and `b` alternately, returning the median of each. */
async function paired(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  trials = TRIALS,
): Promise<[number, number]> {
  const [ta, tb] = await interleaved([a, b], trials);
  return [ta!, tb!];
}

/** A printed-text image rendered with ImageMagick (UINT8 HWC), or dark bars where it is missing. */
function textImage(): Tensor {
  const [w, h] = [640, 160];
  try {
    const raw = execFileSync(
      'convert',
      [
        '-size',
        `${w}x${h}`,
        'xc:white',
        '-fill',
        'black',
        '-font',
        'DejaVu-Sans',
        '-pointsize',
        '48',
        '-annotate',
        '+20+100',
        'Hello World 2024',
        '-depth',
        '8',
        'rgb:-',
      ],
      { maxBuffer: 1 << 24 },
    );
    return { datatype: 'UINT8', shape: [h, w, 3], data: new Uint8Array(raw) };
  } catch {
    const data = new Uint8Array(w * h * 3).fill(255);
    for (let y = 60; y < 100; y++)
      for (let x = 20; x < 600; x++) if ((x >> 3) % 3 !== 0) data.fill(0, (y * w + x) * 3, (y * w + x) * 3 + 3);
    return { datatype: 'UINT8', shape: [h, w, 3], data };
  }
}

async function runOk(
  engine: Engine,
  graph: GraphDoc,
  inputs: Record<string, Tensor>,
  sequence?: { id: number | string; start: boolean; end: boolean },
) {
  const r = await engine.run({ graph, inputs, sequence });
  if (r.status === 'failed') throw new Error(`${graph.name}: ${r.error?.code} ${r.error?.message}`);
  return r;
}

async function main(): Promise<void> {
  disableOnnxRuntimeTelemetry();
  // det gets a second instance for the fan-out branches (one OCR run uses one at a time).
  const repo = writeEngineRepository(
    benchScratchDir('engine-repo-'),
    ['extractor', 'head', 'accumulator', 'det', 'rec', 'cls', 'vad'],
    { det: { instance_group: [{ count: 2, kind: 'KIND_CPU' }] } },
  );
  // Up to 300 VAD streams each keep a run in flight: raise the default limit of 64 concurrent runs.
  const engine = await Engine.create({ repository: repo, maxConcurrentRuns: 1024 });
  const direct = await directSessions(repo, ['det', 'rec', 'cls', 'extractor', 'head', 'vad']);
  const results: Record<string, number> = {};
  const lag = monitorEventLoopDelay({ resolution: 1 });

  // OCR: engine vs the same sessions + ops called directly.
  const ocr = ocrGraph('gate');
  const image = textImage();
  const check = await runOk(engine, ocr, { image });
  log(`ocr text image → ${check.status}, texts: ${JSON.stringify(check.outputs.texts?.data ?? [])}`);
  const [ocrDirect, ocrEngine] = await paired(
    () => directOcr(repo, ocr, direct, image),
    () => runOk(engine, ocr, { image }),
  );
  results.ocr_direct_ms = ocrDirect;
  results.ocr_engine_ms = ocrEngine;
  results.ocr_overhead_ratio = ocrEngine / ocrDirect;

  // Fan-out: two balanced branches (a router feeding two det nodes, det with two instances), one
  // after the other (direct) vs the engine running them in parallel, at 640×640 (the size the issue's
  // worker measurements used) and at the OCR example's 160×640. The same two branches in two bare
  // workers (no engine) give the ceiling this machine allows.
  const detInput = (h: number, w: number): Tensor => ({
    datatype: 'FP32',
    shape: [1, 3, h, w],
    data: Float32Array.from({ length: 3 * h * w }, (_, i) => Math.sin(i * 0.01)),
  });
  const detBranches = branchesGraph(
    'det',
    { name: 'x', dims: [1, 3, -1, -1] },
    { name: 'sigmoid_0.tmp_0', dims: [1, 1, -1, -1] },
    0,
  );
  const det640 = detInput(640, 640);
  const raw = await rawWorkerPair(repo.modelFile('det')!, { x: det640 });
  const [seq, par, rawSeq, rawPar] = await interleaved(
    [
      () => directBranches(direct.det!, { x: det640 }),
      () => runOk(engine, detBranches, { x: det640 }),
      raw.sequential,
      raw.parallel,
    ],
    QUICK ? 3 : 9,
  );
  await raw.close();
  results.fanout_sequential_ms = seq!;
  results.fanout_parallel_ms = par!;
  results.fanout_speedup = seq! / par!;
  results.fanout_raw_workers_speedup = rawSeq! / rawPar!;
  results.fanout_engine_vs_raw_parallel = par! / rawPar!;
  const det160 = detInput(160, 640);
  const [seq160, par160] = await paired(
    () => directBranches(direct.det!, { x: det160 }),
    () => runOk(engine, detBranches, { x: det160 }),
  );
  results.fanout_det160_speedup = seq160 / par160;
  // Smaller branches: two synthetic heads of ~7 ms each, where a worker hop (0.6-1 ms here) weighs more.
  const feat: Tensor = {
    datatype: 'FP32',
    shape: [64, SYNTHETIC.F],
    data: Float32Array.from({ length: 64 * SYNTHETIC.F }, (_, i) => Math.sin(i)),
  };
  const headBranches = branchesGraph(
    'head',
    { name: 'feat', dims: [SYNTHETIC.F] },
    { name: 'logits', dims: [SYNTHETIC.C] },
    64,
  );
  const [seqH, parH] = await paired(
    () => directBranches(direct.head!, { feat }),
    () => runOk(engine, headBranches, { feat }),
  );
  results.fanout_head_speedup = seqH / parH;
  // The shared-features shape: the head branches behind an extractor that runs first (its time and
  // its worker hop cannot overlap anything, so this speedup is lower by construction).
  const x: Tensor = {
    datatype: 'FP32',
    shape: [64, SYNTHETIC.D],
    data: Float32Array.from({ length: 64 * SYNTHETIC.D }, (_, i) => Math.sin(i)),
  };
  const [seqX, parX] = await paired(
    () => directFanout(direct, x),
    () => runOk(engine, fanoutGraph(), { x }),
  );
  results.fanout_extractor_speedup = seqX / parX;

  // Event-loop lag while the engine runs models, in a phase of its own: measured right after a direct
  // (loop-blocking) call, the monitor would report that call's block as lag.
  lag.enable();
  for (let i = 0; i < (QUICK ? 4 : 10); i++)
    await Promise.all([runOk(engine, ocr, { image }), runOk(engine, fanoutGraph(), { x })]);
  lag.disable();
  results.event_loop_lag_p99_ms = lag.percentile(99) / 1e6;

  // Early exit: blank image through the engine vs the direct det-only path (preprocess → det → DB → condition).
  const blank: Tensor = { datatype: 'UINT8', shape: image.shape, data: new Uint8Array(image.data.length).fill(255) };
  const [detOnly, exitRun] = await paired(
    () => directOcr(repo, ocr, direct, blank),
    () => runOk(engine, ocr, { image: blank }),
  );
  results.early_exit_ms = exitRun;
  results.det_only_ms = detOnly;
  results.early_exit_ratio = exitRun / detOnly;

  // oldest sequence batching: 64 sequences on the accumulator, batched (oldest) vs unbatched (direct).
  const S = SYNTHETIC.S;
  const accGraph = (direct: boolean) =>
    singleModelGraph(
      'accumulator',
      [{ name: 'x', dims: [S] }],
      [{ name: 'y', dims: [S] }],
      64,
      direct
        ? {
            sequence_batching: {
              ...repo.catalogue.models.accumulator!.config.sequence_batching,
              oldest: undefined,
              direct: {},
            },
          }
        : undefined,
    );
  const accRun = async (g: GraphDoc, tag: string) => {
    let id = 0;
    const steps = 20;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        const sid = `${tag}-${id++}-${Math.random()}`;
        for (let k = 0; k < steps; k++)
          await runOk(
            engine,
            g,
            { x: { datatype: 'FP32', shape: [1, S], data: new Float32Array(S).fill(1) } },
            { id: sid, start: k === 0, end: k === steps - 1 },
          );
      }),
    );
  };
  const [unbatched, batched] = await paired(
    () => accRun(accGraph(true), 'u'),
    () => accRun(accGraph(false), 'b'),
    QUICK ? 3 : 7,
  );
  results.oldest_unbatched_ms = unbatched;
  results.oldest_batched_ms = batched;
  results.oldest_batching_speedup = unbatched / batched;

  // VAD throughput: 64 streams in a closed loop against the same session called directly on batches
  // of 64, and the main thread's CPU per chunk (what each chunk costs the event loop that streams).
  const loop = await vadClosedLoop(engine, 64, QUICK ? 40 : 100, QUICK ? 3 : 5);
  results.vad_direct_batched_chunks_per_s = await vadDirectBatched(direct.vad!, QUICK ? 30 : 100);
  results.vad_closed_loop_chunks_per_s = loop.chunksPerS;
  results.vad_throughput_vs_direct_batched = loop.chunksPerS / results.vad_direct_batched_chunks_per_s;
  if (loop.mainUsPerChunk !== undefined) results.vad_main_thread_us_per_chunk = loop.mainUsPerChunk;

  // Real-time VAD streams: ramp until a level's chunk p99 exceeds 20 ms in two trials running. One
  // stall of this VM (tens of ms, every few seconds) delays a chunk of every stream at once and alone
  // puts a 1.3 s trial over; a second trial tells such a stall from a level the engine cannot carry.
  let sustained = 0;
  for (const n of QUICK ? [5, 10, 20, 40, 80, 160] : [5, 10, 15, 20, 30, 40, 60, 80, 100, 150, 200, 250, 300]) {
    let ok = false;
    for (let trial = 1; trial <= 2 && !ok; trial++) {
      const p99 = await vadLevel(engine, n, QUICK ? 20 : 40);
      log(`vad ${n} streams, trial ${trial}: chunk p99 ${p99.toFixed(2)} ms`);
      ok = p99 <= 20;
    }
    if (!ok) break;
    sustained = n;
  }
  results.vad_streams_realtime = sustained;

  await engine.close();

  // The Python backend: round trip, a large tensor, two instances in parallel.
  try {
    Object.assign(results, await pythonBench(benchScratchDir('python-repo-'), interleaved, QUICK));
  } catch (err) {
    log(`python backend not measured: ${(err as Error).message.split('\n')[0]}`);
  }
  // The gRPC endpoint: a streamed (decoupled) response's delivery, ModelInfer against the engine alone.
  try {
    Object.assign(results, await grpcBench(benchScratchDir('grpc-repo-'), image, QUICK));
  } catch (err) {
    log(`grpc not measured: ${(err as Error).message.split('\n')[0]}`);
  }
  log(`\n${'metric'.padEnd(34)}value`);
  for (const [k, v] of Object.entries(results)) log(`${k.padEnd(34)}${Number.isInteger(v) ? v : v.toFixed(3)}`);
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
