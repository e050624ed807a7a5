import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { singleModelGraph, type Tensor } from '@ensemble-studio/core';
import { loadRepository } from '../../../repo/loadRepository.ts';
import { tempDir } from '../../../testing/tempDir.ts';
import { Engine } from '../../Engine.ts';
import { pythonInterpreter } from './autoComplete.ts';
import { PythonInstance } from './PythonInstance.ts';

// Large tensors cross between the engine and a stub through two region files in a tmpfs (PROTOCOL.md, "Large
// tensors"), with the pipes as the fallback; these run a real python3 stub against a real directory.

// Returns each input doubled, the first input it ever got (kept past its execute), and every input back.
const KEEPER = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        self.kept = None

    def execute(self, requests):
        out = []
        for r in requests:
            inputs = r.inputs()
            x = inputs[0].as_numpy()
            if self.kept is None:
                self.kept = x
            echoed = [pb_utils.Tensor("E" + t.name(), t.as_numpy()) for t in inputs]
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x * 2), pb_utils.Tensor("KEPT", self.kept)] + echoed))
        return out
`;

const BLS_BIG = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            call = pb_utils.InferenceRequest(model_name="keeper", inputs=[pb_utils.Tensor("X", r.inputs()[0].as_numpy())],
                                             requested_output_names=["Y"])
            reply = call.exec()
            if reply.has_error():
                raise pb_utils.TritonModelException(reply.error().message())
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", reply.output_tensors()[0].as_numpy())]))
        return out
`;

const MIB_FLOATS = 256 * 1024;
const f32 = (n: number, start: number): Tensor => ({
  datatype: 'FP32',
  shape: [n],
  data: Float32Array.from({ length: n }, (_, i) => start + i),
});
const values = (t: Tensor | undefined) => [...(t!.data as Float32Array)];

const instances: PythonInstance[] = [];
afterAll(async () => {
  await Promise.all(instances.map((i) => i.close()));
});

async function keeper(shmDir: string, maxBodyBytes = 64 << 20): Promise<{ inst: PythonInstance; pid: number }> {
  const dir = tempDir('py-region-model-');
  writeFileSync(join(dir, 'model.py'), KEEPER.trimStart());
  const inst = new PythonInstance(
    'keeper_0',
    {
      model: 'keeper',
      modelFile: join(dir, 'model.py'),
      modelDir: dir,
      version: 1,
      configJson: JSON.stringify({ name: 'keeper' }),
      python: pythonInterpreter(),
      bls: (_call, sink) => sink.end('no BLS here'),
      limits: { maxTensorElements: 1 << 24, maxBodyBytes },
      shmDir,
    },
    () => {},
  );
  instances.push(inst);
  await inst.start();
  return { inst, pid: (inst as unknown as { proc: { pid: number } }).proc.pid };
}

async function run(inst: PythonInstance, inputs: Record<string, Tensor>): Promise<Record<string, Tensor>> {
  const r = await inst.request({ requests: [{ inputs }] }, []);
  const first = r.results[0]!;
  if (!first.ok) throw first.error;
  return first.responses[0]!;
}

/** The sizes of the region files the stub holds open (their names are gone), one per file. */
function regionSizes(pid: number, shmDir: string): number[] {
  const sizes = new Map<number, number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (target.startsWith(join(shmDir, 'ensemble-studio-py-'))) {
      expect(target).toMatch(/ \(deleted\)$/);
      const st = statSync(`/proc/${pid}/fd/${fd}`);
      sizes.set(st.ino, st.size);
    }
  }
  return [...sizes.values()];
}

describe('large tensors through region files', () => {
  it('carries large inputs and outputs through the regions, leaving no name behind; a kept input and a held output never change', async () => {
    const shm = tempDir('py-region-shm-');
    const { inst, pid } = await keeper(shm);
    expect(readdirSync(shm)).toEqual([]);
    const first = await run(inst, { X: f32(MIB_FLOATS, 0) });
    expect(regionSizes(pid, shm)).toHaveLength(2);
    expect(Math.min(...regionSizes(pid, shm))).toBeGreaterThanOrEqual(4 * MIB_FLOATS);
    const second = await run(inst, { X: f32(MIB_FLOATS, 7) });
    expect(values(second.Y)[3]).toBe(20);
    expect(values(second.KEPT)).toEqual(values(f32(MIB_FLOATS, 0)));
    expect(values(first.Y)).toEqual(values(f32(MIB_FLOATS, 0)).map((v) => v * 2));
    expect(values(first.EX)).toEqual(values(f32(MIB_FLOATS, 0)));
    // A small tensor keeps to its frame beside large ones; a large BYTES tensor crosses serialised.
    const words = Array.from({ length: 20_000 }, (_, i) => `word ${i}`);
    const mixed = await run(inst, {
      X: f32(MIB_FLOATS, 1),
      S: f32(3, 5),
      B: { datatype: 'BYTES', shape: [20_000], data: words },
    });
    expect(values(mixed.ES)).toEqual([5, 6, 7]);
    expect(mixed.EB!.data).toEqual(words);
    expect(values(mixed.EX).slice(0, 2)).toEqual([1, 2]);
  });

  it('sends what does not fit in a full region through the pipes', async () => {
    const shm = tempDir('py-region-shm-');
    // maxBodyBytes 1 MiB: each region holds at most 4 MiB, so 4 of 6 one-MiB tensors fit, the other 2 use the pipe.
    const { inst, pid } = await keeper(shm, 1 << 20);
    const inputs = Object.fromEntries(Array.from({ length: 6 }, (_, k) => [`I${k}`, f32(MIB_FLOATS, k * 1000)]));
    const out = await run(inst, inputs);
    for (let k = 0; k < 6; k++) expect(values(out[`EI${k}`])).toEqual(values(inputs[`I${k}`]));
    const sizes = regionSizes(pid, shm);
    expect(sizes).toHaveLength(2);
    for (const s of sizes) expect(s).toBe(4 << 20);
    // The ranges came free again: the same call still works.
    const again = await run(inst, inputs);
    expect(values(again.EI5)).toEqual(values(inputs.I5));
  });

  it('keeps to the pipes when the region directory is unusable', async () => {
    const missing = join(tempDir('py-region-shm-'), 'missing');
    const { inst, pid } = await keeper(missing);
    const out = await run(inst, { X: f32(MIB_FLOATS, 3) });
    expect(values(out.EX)).toEqual(values(f32(MIB_FLOATS, 3)));
    expect(regionSizes(pid, missing)).toEqual([]);
  });

  it('leaves no region file after a killed stub, and removes those of server processes that are gone', async () => {
    const shm = tempDir('py-region-shm-');
    const dead = spawnSync('true').pid;
    writeFileSync(join(shm, `ensemble-studio-py-${dead}-old_0-in-000000000000`), 'x');
    writeFileSync(join(shm, `ensemble-studio-py-${process.pid}-mine-in-000000000000`), 'x');
    const { inst, pid } = await keeper(shm);
    expect(readdirSync(shm)).toEqual([`ensemble-studio-py-${process.pid}-mine-in-000000000000`]);
    await run(inst, { X: f32(MIB_FLOATS, 0) });
    inst.crash();
    for (let i = 0; i < 100 && inst.state !== 'dead'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(inst.state).toBe('dead');
    expect(() => statSync(`/proc/${pid}/stat`)).toThrow();
    expect(readdirSync(shm)).toEqual([`ensemble-studio-py-${process.pid}-mine-in-000000000000`]);
  });

  it('passes large BLS inputs and outputs', async () => {
    const dir = tempDir('py-region-repo-');
    for (const [name, py] of [
      ['keeper', KEEPER],
      ['bls_big', BLS_BIG],
    ] as const) {
      mkdirSync(join(dir, name, '1'), { recursive: true });
      writeFileSync(join(dir, name, '1', 'model.py'), py.trimStart());
      writeFileSync(
        join(dir, name, 'config.pbtxt'),
        `name: "${name}"\nbackend: "python"\ninput [{ name: "X" data_type: TYPE_FP32 dims: [ -1 ] }]\noutput [{ name: "Y" data_type: TYPE_FP32 dims: [ -1 ] }]\n`,
      );
    }
    const repo = await loadRepository(dir);
    const engine = await Engine.create({ repository: repo });
    try {
      const r = await engine.run({
        graph: singleModelGraph(repo.catalogue.models.bls_big!),
        inputs: { X: f32(MIB_FLOATS, 4) },
      });
      expect(r.status).toBe('completed');
      expect(values(r.outputs.Y)).toEqual(values(f32(MIB_FLOATS, 4)).map((v) => v * 2));
    } finally {
      await engine.close();
    }
  });
});
