// The Python backend's costs: an engine round trip of an identity model.py against the same `execute`
// called in-process, a 4.9 MB tensor through it, and two CPU-bound instances against one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { pythonInterpreter } from '../src/engine/backends/python/autoComplete.ts';
import { Engine } from '../src/engine/index.ts';
import { loadRepository } from '../src/repo/loadRepository.ts';

const STUB_DIR = join(dirname(fileURLToPath(import.meta.url)), '../src/engine/backends/python/stub');

const IDENTITY = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", pb_utils.get_input_tensor_by_name(r, "X").as_numpy())]) for r in requests]
`;

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

/** Runs the Python backend's three measurements; `time(fns)` is the bench's interleaved median timer. */
export async function pythonBench(
  scratch: string,
  time: (fns: (() => Promise<unknown>)[], trials?: number) => Promise<number[]>,
  quick: boolean,
): Promise<Record<string, number>> {
  writeModel(scratch, 'identity', IDENTITY, 1);
  writeModel(scratch, 'burn1', BURN, 1);
  writeModel(scratch, 'burn2', BURN, 2);
  const repo = await loadRepository(scratch);
  const engine = await Engine.create({ repository: repo });
  try {
    const graph = (m: string) => singleModelGraph(repo.catalogue.models[m]!);
    const ok = async (m: string, x: Tensor) => {
      const r = await engine.run({ graph: graph(m), inputs: { X: x } });
      if (r.status !== 'completed') throw new Error(`${m}: ${r.error?.message}`);
      return r;
    };
    const small: Tensor = { datatype: 'FP32', shape: [16], data: new Float32Array(16) };
    const trials = quick ? 50 : 300;
    const [roundTrip] = await time([() => ok('identity', small)], trials);
    const inProcess = inProcessExecuteUs(repo.modelFile('identity')!, 16, trials) / 1000;
    const big: Tensor = {
      datatype: 'FP32',
      shape: [1_225_000],
      data: Float32Array.from({ length: 1_225_000 }, (_, i) => i),
    };
    const [bigMs] = await time([() => ok('identity', big)], quick ? 10 : 40);
    const work: Tensor = { datatype: 'FP32', shape: [1], data: Float32Array.of(1_500_000) };
    const [one, two] = await time(
      [
        () => Promise.all([ok('burn1', work), ok('burn1', work)]),
        () => Promise.all([ok('burn2', work), ok('burn2', work)]),
      ],
      quick ? 3 : 7,
    );
    return {
      python_roundtrip_ms: roundTrip!,
      python_execute_in_process_ms: inProcess,
      python_roundtrip_overhead_ms: roundTrip! - inProcess,
      python_large_tensor_ms: bigMs!,
      // One 4.9 MB tensor's size per round trip (it crosses twice: in and back).
      python_large_tensor_gbps: (big.data as Float32Array).byteLength / (bigMs! / 1000) / 1e9,
      python_parallel_speedup: one! / two!,
    };
  } finally {
    await engine.close();
  }
}
