import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { f32Bytes, f32Values } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { call } from '../testing/testServer.ts';

// A model that leaves out an output of its config: Triton's Python backend sends the outputs the model made, and
// its HTTP and gRPC servers answer with those (a requested one it did not make is simply absent); an ensemble whose
// step leaves one out puts a placeholder for it, so its response lacks that output too.

/** `partial`: X FP32 [1] → Y = 2X, and S in its config, which it never makes. */
function writePartialModel(repo: string): void {
  mkdirSync(join(repo, 'partial', '1'), { recursive: true });
  writeFileSync(
    join(repo, 'partial', 'config.pbtxt'),
    `backend: "python"
input [ { name: "X" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ 1 ] }, { name: "S" data_type: TYPE_FP32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`,
  );
  writeFileSync(
    join(repo, 'partial', '1', 'model.py'),
    `import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("Y", 2 * pb_utils.get_input_tensor_by_name(r, "X").as_numpy())])
                for r in requests]
`,
  );
}

/** Saved graph `name`: X → partial, with `partial`'s ports `Y` and `S` wired to outputs of the same names. */
function writeGraph(repo: string, name: string): void {
  const at = { x: 0, y: 0 };
  const tensor = (n: string) => ({ name: n, datatype: 'FP32', dims: [1] });
  const graph = {
    version: 1,
    name,
    maxBatchSize: 0,
    nodes: [
      { id: 'x', kind: 'input', position: at, params: tensor('X') },
      { id: 'm', kind: 'model', position: at, params: { model: 'partial' } },
      { id: 'y', kind: 'output', position: at, params: tensor('Y') },
      { id: 's', kind: 'output', position: at, params: tensor('S') },
    ],
    edges: [
      { id: 'e1', source: 'x', sourcePort: 'out', target: 'm', targetPort: 'X' },
      { id: 'e2', source: 'm', sourcePort: 'Y', target: 'y', targetPort: 'in' },
      { id: 'e3', source: 'm', sourcePort: 'S', target: 's', targetPort: 'in' },
    ],
  };
  mkdirSync(join(repo, name));
  writeFileSync(join(repo, name, 'studio.json'), JSON.stringify(graph));
}

let t: GrpcTestServer;
beforeAll(async () => {
  const repo = makeTestRepository();
  writePartialModel(repo);
  writeGraph(repo, 'partial_graph');
  t = await startGrpcTestServer({ repo });
}, 60_000);
afterAll(() => t?.close());

const body = (outputs?: string[]) => ({
  inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [3] }],
  ...(outputs ? { outputs: outputs.map((name) => ({ name })) } : {}),
});

describe('an output the model does not make', () => {
  it.each(['partial', 'partial_graph'])('HTTP: %s answers 200 with the outputs made', async (model) => {
    for (const asked of [undefined, ['Y', 'S'], ['S']]) {
      const r = await call(`${t.s.url}/v2/models/${model}/infer`, 'POST', body(asked));
      expect(r.status).toBe(200);
      const names = (r.json.outputs as { name: string; data: number[] }[]).map((o) => [o.name, o.data]);
      expect(names).toEqual(asked?.length === 1 ? [] : [['Y', [6]]]);
    }
  });

  it.each(['partial', 'partial_graph'])('gRPC: %s answers with the outputs made', async (model) => {
    for (const asked of [undefined, ['S', 'Y'], ['S']]) {
      const r = await t.c.call('ModelInfer', {
        model_name: model,
        inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }],
        raw_input_contents: [f32Bytes([3])],
        ...(asked ? { outputs: asked.map((name) => ({ name })) } : {}),
      });
      expect(r.outputs.map((o: { name: string }) => o.name)).toEqual(asked?.length === 1 ? [] : ['Y']);
      if (r.raw_output_contents.length > 0) expect(f32Values(r.raw_output_contents[0])).toEqual([6]);
    }
  });

  it('an output the model does not have is refused before the run, as before', async () => {
    const r = await call(`${t.s.url}/v2/models/partial/infer`, 'POST', body(['nope']));
    expect([r.status, r.json]).toEqual([400, { error: "unexpected inference output 'nope' for model 'partial'" }]);
    await expect(
      t.c.call('ModelInfer', {
        model_name: 'partial',
        inputs: [{ name: 'X', datatype: 'FP32', shape: [1] }],
        raw_input_contents: [f32Bytes([3])],
        outputs: [{ name: 'nope' }],
      }),
    ).rejects.toMatchObject({ details: "unexpected inference output 'nope' for model 'partial'" });
  });
});
