// The Python backend's costs: an engine round trip of an identity model.py against the same `execute`
// called in-process, a 4.9 MB tensor through it, and two CPU-bound instances against one; each beside a bare
// python3 pipe doing the same in the same blocks. The engine and the bare pipes run in processes of their own.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { pythonInterpreter } from '../src/engine/backends/python/autoComplete.ts';
import { Engine } from '../src/engine/index.ts';
import { loadRepository } from '../src/repo/loadRepository.ts';
import { barePython } from './barePython.ts';
import { type BenchContext, raiseBenchEventLoop } from './context.ts';
import { ContenderProcess, type Hosted } from './contenderProcess.ts';
import { measureBlocks } from './measure.ts';
import { benchScratchDir } from './scratchDir.ts';
import { perBlock } from './stats.ts';

const STUB_DIR = join(dirname(fileURLToPath(import.meta.url)), '../src/engine/backends/python/stub');

const IDENTITY = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy())]) for r in requests]
`;

/** Iterations of the pure-Python loop per CPU-bound request (the burn model's input, and the bare process's). */
const BURN_COUNT = 1_500_000;

// About 40 ms of pure-Python work per request: it holds its process's GIL, so only instances run it in parallel.
const BURN = `
import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            n = int(pb_utils.get_input_tensor_by_name(r, "X").as_numpy()[0])
            s = 0
            for i in range(n):
                s += i % 7
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", np.array([s], dtype=np.float32))]))
        return out
`;

function writeModel(dir: string, name: string, py: string, instances: number): void {
  mkdirSync(join(dir, name, '1'), { recursive: true });
  writeFileSync(join(dir, name, '1', 'model.py'), py.trimStart());
  writeFileSync(
    join(dir, name, 'config.pbtxt'),
    `name: "${name}"\nbackend: "python"\ninput [{ name: "X" data_type: TYPE_FP32 dims: [ -1 ] }]\noutput [{ name: "Y" data_type: TYPE_FP32 dims: [ -1 ] }]\ninstance_group [{ count: ${instances} kind: KIND_CPU }]\n`,
  );
}

/** Median µs of the identity model's `execute` called in-process (no engine, no pipes), on `n` floats. */
function inProcessExecuteUs(modelFile: string, n: number, trials: number): number {
  const script = `
import sys, time, importlib.util
import numpy as np
import triton_python_backend_utils as pb_utils
spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
model = m.TritonPythonModel()
x = np.zeros(${n}, dtype=np.float32)
times = []
for _ in range(${trials}):
    req = pb_utils.InferenceRequest(model_name="identity", inputs=[pb_utils.Tensor("X", x)], requested_output_names=["Y"])
    t = time.perf_counter(); model.execute([req]); times.append(time.perf_counter() - t)
times.sort(); print(times[len(times) // 2] * 1e6)
`;
  const out = execFileSync(pythonInterpreter(), ['-c', script, modelFile], {
    env: { ...process.env, PYTHONPATH: STUB_DIR },
    encoding: 'utf8',
  });
  return Number(out.trim());
}

/** The 4.9 MB tensor, alike in both processes. */
const bigTensor = (): Tensor => ({
  datatype: 'FP32',
  shape: [1_225_000],
  data: Float32Array.from({ length: 1_225_000 }, (_, i) => i),
});

/** The engine's side: identity, burn1 and burn2 in a scratch repository; its python processes count in its usage. */
export async function pythonEngineSide(quick: boolean): Promise<Hosted> {
  const scratch = benchScratchDir('python-repo-');
  writeModel(scratch, 'identity', IDENTITY, 1);
  writeModel(scratch, 'burn1', BURN, 1);
  writeModel(scratch, 'burn2', BURN, 2);
  const repo = await loadRepository(scratch);
  const engine = await Engine.create({ repository: repo });
  await raiseBenchEventLoop(); // as `serve` does once it is up
  // One document per model, as the server keeps one per catalogue model: the engine prepares a graph once per document.
  const graphs = new Map<string, GraphDoc>();
  const graph = (m: string) => {
    let g = graphs.get(m);
    if (!g) graphs.set(m, (g = singleModelGraph(repo.catalogue.models[m]!)));
    return g;
  };
  const ok = async (m: string, x: Tensor) => {
    const r = await engine.run({ graph: graph(m), inputs: { X: x } });
    if (r.status !== 'completed') throw new Error(`${m}: ${r.error?.message}`);
  };
  const small: Tensor = { datatype: 'FP32', shape: [16], data: new Float32Array(16) };
  const big = bigTensor();
  const work: Tensor = { datatype: 'FP32', shape: [1], data: Float32Array.of(BURN_COUNT) };
  return {
    tasks: {
      python_roundtrip: () => ok('identity', small),
      python_large_tensor: () => ok('identity', big),
      python_one_instance: () => Promise.all([ok('burn1', work), ok('burn1', work)]),
      python_two_instances: () => Promise.all([ok('burn2', work), ok('burn2', work)]),
      python_execute_in_process: async () =>
        inProcessExecuteUs(repo.modelFile('identity')!, 16, quick ? 50 : 300) / 1000,
    },
    close: () => engine.close(),
    countChildren: true,
  };
}

/** The bare side: two bare python3 processes on pipes; they count in its usage. */
export function pythonBareSide(): Hosted {
  const python = pythonInterpreter();
  const bare = [barePython(python), barePython(python)];
  const smallBytes = new Uint8Array(64);
  const bigBytes = new Uint8Array((bigTensor().data as Float32Array).buffer);
  return {
    tasks: {
      python_bare_pipe_roundtrip: () => bare[0]!.echo(smallBytes),
      python_bare_pipe_large: () => bare[0]!.echo(bigBytes),
      python_bare_one_process: async () => {
        await bare[0]!.burn(BURN_COUNT);
        await bare[0]!.burn(BURN_COUNT);
      },
      python_bare_two_processes: () => Promise.all(bare.map((b) => b.burn(BURN_COUNT))),
    },
    close: async () => bare.forEach((b) => b.close()),
    countChildren: true,
  };
}

const ROLES = new URL('./roles.ts', import.meta.url);

/**
 * The Python backend's three, each in interleaved blocks beside a bare python3 pipe doing the same: the round
 * trip of 16 floats, a 4.9 MB tensor's round trip, and two CPU-bound requests on two instances against one.
 * The python processes' page faults and CPU count in their side's usage.
 */
export async function pythonBench(ctx: BenchContext): Promise<void> {
  const { report, blocks, quick, log } = ctx;
  const [engine, bare] = await Promise.all([
    ContenderProcess.start('python_engine', { module: ROLES, name: 'pythonEngineRole' }, { quick, blocks }, log),
    ContenderProcess.start('python_bare', { module: ROLES, name: 'pythonBareRole' }, { quick, blocks }, log),
  ]);
  try {
    const trip = [engine.contender('python_roundtrip'), bare.contender('python_bare_pipe_roundtrip')];
    const t = report.addMeasured(trip, await measureBlocks(trip, { blocks, trials: quick ? 30 : 100 }));
    const inProcess: number[] = [];
    for (let b = 0; b < blocks; b++) inProcess.push(await engine.call<number>('python_execute_in_process'));
    report.add('python_execute_in_process_ms', inProcess);
    report.add(
      'python_roundtrip_overhead_ms',
      perBlock(t.python_roundtrip!, inProcess, (r, e) => r - e),
      ['python_bare_pipe_roundtrip_ms'],
    );
    // What the engine adds to a pipe's round trip on this machine, block by block: the two wake-ups are in both.
    report.add(
      'python_roundtrip_beyond_bare_ms',
      perBlock(t.python_roundtrip!, t.python_bare_pipe_roundtrip!, (r, b) => r - b),
    );

    const large = [engine.contender('python_large_tensor'), bare.contender('python_bare_pipe_large')];
    const l = report.addMeasured(large, await measureBlocks(large, { blocks, trials: quick ? 5 : 12 }));
    // One 4.9 MB tensor's size per round trip (it crosses twice: in and back).
    const gbps = (ms: number) => (bigTensor().data.length * 4) / (ms / 1000) / 1e9;
    report.add('python_bare_pipe_large_gbps', l.python_bare_pipe_large!.map(gbps));
    report.add('python_large_tensor_gbps', l.python_large_tensor!.map(gbps), ['python_bare_pipe_large_gbps']);

    const par = [
      engine.contender('python_one_instance', 2),
      engine.contender('python_two_instances', 2),
      bare.contender('python_bare_one_process', 2),
      bare.contender('python_bare_two_processes', 2),
    ];
    const p = report.addMeasured(par, await measureBlocks(par, { blocks, trials: quick ? 2 : 3 }));
    const speedup = (one: number, two: number) => one / two;
    report.add(
      'python_bare_parallel_speedup',
      perBlock(p.python_bare_one_process!, p.python_bare_two_processes!, speedup),
    );
    report.add('python_parallel_speedup', perBlock(p.python_one_instance!, p.python_two_instances!, speedup), [
      'python_bare_parallel_speedup',
    ]);
  } finally {
    await Promise.all([engine.close(), bare.close()]);
  }
}
