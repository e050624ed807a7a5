// The Python backend's costs: an engine round trip of an identity model.py against the same `execute`
// called in-process, a 4.9 MB tensor through it, and two CPU-bound instances against one; each beside a bare
// python3 pipe doing the same in the same blocks.
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
import type { BenchContext } from './context.ts';
import { measureBlocks, type Contender } from './measure.ts';
import { childPids } from './usage.ts';
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

/**
 * The Python backend's three, each in interleaved blocks beside a bare python3 pipe doing the same: the round
 * trip of 16 floats, a 4.9 MB tensor's round trip, and two CPU-bound requests on two instances against one.
 * The python processes' page faults and CPU count in the usage table.
 */
export async function pythonBench(scratch: string, ctx: BenchContext): Promise<void> {
  const { report, blocks, quick } = ctx;
  writeModel(scratch, 'identity', IDENTITY, 1);
  writeModel(scratch, 'burn1', BURN, 1);
  writeModel(scratch, 'burn2', BURN, 2);
  const repo = await loadRepository(scratch);
  const engine = await Engine.create({ repository: repo });
  const python = pythonInterpreter();
  const bare = [barePython(python), barePython(python)];
  try {
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
      return r;
    };
    const children = childPids;
    const small: Tensor = { datatype: 'FP32', shape: [16], data: new Float32Array(16) };
    const smallBytes = new Uint8Array(64);
    const trip: Contender[] = [
      { name: 'python_roundtrip', run: () => ok('identity', small) },
      { name: 'python_bare_pipe_roundtrip', run: () => bare[0]!.echo(smallBytes) },
    ];
    const t = report.addMeasured(trip, await measureBlocks(trip, { blocks, trials: quick ? 30 : 100, children }));
    const inProcess = Array.from(
      { length: blocks },
      () => inProcessExecuteUs(repo.modelFile('identity')!, 16, quick ? 50 : 300) / 1000,
    );
    report.add('python_execute_in_process_ms', inProcess);
    report.add(
      'python_roundtrip_overhead_ms',
      perBlock(t.python_roundtrip!, inProcess, (r, e) => r - e),
      ['python_bare_pipe_roundtrip_ms'],
    );

    const big: Tensor = {
      datatype: 'FP32',
      shape: [1_225_000],
      data: Float32Array.from({ length: 1_225_000 }, (_, i) => i),
    };
    const bigBytes = new Uint8Array((big.data as Float32Array).buffer);
    const large: Contender[] = [
      { name: 'python_large_tensor', run: () => ok('identity', big) },
      { name: 'python_bare_pipe_large', run: () => bare[0]!.echo(bigBytes) },
    ];
    const l = report.addMeasured(large, await measureBlocks(large, { blocks, trials: quick ? 5 : 12, children }));
    // One 4.9 MB tensor's size per round trip (it crosses twice: in and back).
    const gbps = (ms: number) => bigBytes.byteLength / (ms / 1000) / 1e9;
    report.add('python_bare_pipe_large_gbps', l.python_bare_pipe_large!.map(gbps));
    report.add('python_large_tensor_gbps', l.python_large_tensor!.map(gbps), ['python_bare_pipe_large_gbps']);

    const work: Tensor = { datatype: 'FP32', shape: [1], data: Float32Array.of(BURN_COUNT) };
    const par: Contender[] = [
      { name: 'python_one_instance', run: () => Promise.all([ok('burn1', work), ok('burn1', work)]), requests: 2 },
      { name: 'python_two_instances', run: () => Promise.all([ok('burn2', work), ok('burn2', work)]), requests: 2 },
      {
        name: 'python_bare_one_process',
        run: async () => {
          await bare[0]!.burn(BURN_COUNT);
          await bare[0]!.burn(BURN_COUNT);
        },
        requests: 2,
      },
      { name: 'python_bare_two_processes', run: () => Promise.all(bare.map((b) => b.burn(BURN_COUNT))), requests: 2 },
    ];
    const p = report.addMeasured(par, await measureBlocks(par, { blocks, trials: quick ? 2 : 3, children }));
    const speedup = (one: number, two: number) => one / two;
    report.add(
      'python_bare_parallel_speedup',
      perBlock(p.python_bare_one_process!, p.python_bare_two_processes!, speedup),
    );
    report.add('python_parallel_speedup', perBlock(p.python_one_instance!, p.python_two_instances!, speedup), [
      'python_bare_parallel_speedup',
    ]);
  } finally {
    for (const b of bare) b.close();
    await engine.close();
  }
}
