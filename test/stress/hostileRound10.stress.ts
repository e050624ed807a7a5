// The tenth independent hostile-input round, as regression cases: BLS requests that Triton refuses before running
// them (an input named twice or named `__proto__`, an output the callee does not make, a version it lacks), made by
// a Python model, and a config.pbtxt of megabytes loaded through the repository API, against a real `studio serve`
// with a bystander asking /v2/health/ready from a process of its own.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { http, spawnStudio } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { probedStudio } from './hostileProbe.ts';

/** Writes Python model `name` (CASE INT32 [1] → OUT FP32 [1], NAMES BYTES [-1]) whose `execute` is `body`. */
function writeModel(repo: string, name: string, body: string): void {
  mkdirSync(join(repo, name, '1'), { recursive: true });
  writeFileSync(
    join(repo, name, 'config.pbtxt'),
    `name: "${name}"
backend: "python"
input [ { name: "CASE" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] }, { name: "NAMES" data_type: TYPE_STRING dims: [ -1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`,
  );
  writeFileSync(
    join(repo, name, '1', 'model.py'),
    `import numpy as np
import triton_python_backend_utils as pb_utils

T = pb_utils.Tensor

class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for r in requests:
            case = int(pb_utils.get_input_tensor_by_name(r, "CASE").as_numpy()[0])
${body}
        return responses
`,
  );
}

// The callee answers OUT = 1 and NAMES = [] whatever it is asked.
const CALLEE = `            responses.append(pb_utils.InferenceResponse([T("OUT", np.ones(1, np.float32)),
                                                         T("NAMES", np.array([b""], dtype=np.object_))]))`;

// The caller makes BLS request CALLS[case] to the callee and answers with the names of the outputs it got, or
// raises with the BLS response's error.
const CALLER = `            x = T("CASE", np.array([0], np.int32))
            calls = [
                dict(inputs=[T("__proto__", np.array([0], np.int32)), x], requested_output_names=["OUT"]),
                dict(inputs=[x, x], requested_output_names=["OUT"]),
                dict(inputs=[x], requested_output_names=["nope"]),
                dict(inputs=[x], requested_output_names=["OUT"], model_version=99),
                dict(inputs=[x], requested_output_names=["OUT"], model_version=1),
            ]
            got = pb_utils.InferenceRequest(model_name="callee", **calls[case]).exec()
            if got.has_error():
                raise pb_utils.TritonModelException("BLS: " + got.error().message())
            names = [t.name().encode() for t in got.output_tensors()]
            responses.append(pb_utils.InferenceResponse([T("OUT", np.zeros(1, np.float32)),
                                                         T("NAMES", np.array(names, dtype=np.object_))]))`;

let repo = '';
const { studio, probe } = probedStudio(() => {
  repo = tempDir('studio-round10-');
  writeModel(repo, 'callee', CALLEE);
  writeModel(repo, 'caller', CALLER);
  return spawnStudio(repo);
});

const callerInfer = (which: number) =>
  http(`${studio.url}/v2/models/caller/infer`, {
    method: 'POST',
    body: JSON.stringify({ inputs: [{ name: 'CASE', datatype: 'INT32', shape: [1], data: [which] }] }),
  });

const blsError = (message: string) => ({
  error: `Failed to process the request(s) for model 'caller_0_0', message: BLS: ${message}`,
});

describe('hostile input, tenth round', () => {
  it.each([
    // Assigned as a key, "__proto__" became the inputs' prototype: the tensor vanished and the call ran without it.
    ['an input named __proto__', 0, "unexpected input '__proto__': graph 'callee' takes 'CASE'"],
    ['an input named twice', 1, "[request id: <id_unknown>] input 'CASE' already exists in request"],
    ['an output the callee does not make', 2, "unexpected inference output 'nope' for model 'callee'"],
    ['a version the callee lacks', 3, "Request for unknown model: 'callee' version 99 is not found"],
  ])("a BLS request with %s is refused with Triton's message", async (cause, which, message) => {
    const r = await probe(`a BLS request with ${cause}`, () => callerInfer(which));
    expect([r.status, r.json]).toEqual([500, blsError(message)]);
  });

  it('a BLS request for the version the callee has is answered', async () => {
    const r = await callerInfer(4);
    expect(r.status).toBe(200);
    const names = (r.json as { outputs: { name: string; data: unknown[] }[] }).outputs.find((o) => o.name === 'NAMES');
    expect(names?.data).toEqual(['OUT']);
  });

  it('a config.pbtxt of megabytes is refused from its size at load, before it is parsed on the main thread', async () => {
    // Parsed, ten megabytes of one string held every client for seconds.
    writeModel(repo, 'huge_config', CALLEE);
    const config = join(repo, 'huge_config', 'config.pbtxt');
    const padding = `parameters { key: "pad" value { string_value: "${'x'.repeat(4 << 20)}" } }\n`;
    writeFileSync(config, readFileSync(config, 'utf8') + padding);
    const size = statSync(config).size;
    const r = await probe('a load of a 4 MiB config.pbtxt', () =>
      http(`${studio.url}/v2/repository/models/huge_config/load`, { method: 'POST' }),
    );
    expect([r.status, r.json]).toEqual([
      400,
      {
        error: `load failed for model 'huge_config': model 'huge_config' failed to load: config.pbtxt is ${size} bytes, over the limit of 1048576 for a model's config`,
      },
    ]);
    expect((await http(`${studio.url}/v2/models/callee/ready`)).status).toBe(200);
  });

  it('a studio.json of megabytes is refused from its size, and the repository reads of other loads skip it', async () => {
    // Parsed at every repository read, 40 MB of graph held every client for over a second per load of any model.
    mkdirSync(join(repo, 'huge_graph'));
    const at = { x: 0, y: 0 };
    const graph = {
      version: 1,
      name: 'huge_graph',
      description: 'x'.repeat(9 << 20),
      maxBatchSize: 0,
      nodes: [
        { id: 'in', kind: 'input', position: at, params: { name: 'CASE', datatype: 'INT32', dims: [1] } },
        { id: 'model', kind: 'model', position: at, params: { model: 'callee' } },
        { id: 'out', kind: 'output', position: at, params: { name: 'OUT', datatype: 'FP32', dims: [1] } },
      ],
      edges: [
        { id: 'e1', source: 'in', sourcePort: 'out', target: 'model', targetPort: 'CASE' },
        { id: 'e2', source: 'model', sourcePort: 'OUT', target: 'out', targetPort: 'in' },
      ],
    };
    writeFileSync(join(repo, 'huge_graph', 'studio.json'), JSON.stringify(graph));
    const load = (m: string) => http(`${studio.url}/v2/repository/models/${m}/load`, { method: 'POST' });
    const other = await probe('a load of another model beside a 9 MiB studio.json', () => load('callee'));
    expect(other.status).toBe(200);
    const refused = await probe('a load of a 9 MiB studio.json', () => load('huge_graph'));
    // The eleventh round: a graph that failed to load says why, as a model does (it answered 404 before).
    expect([refused.status, (refused.json as { error: string }).error]).toEqual([
      400,
      expect.stringMatching(
        /^load failed for model 'huge_graph': .*studio\.json is \d+ bytes, over the limit of 8388608/,
      ),
    ]);
    expect((await http(`${studio.url}/v2/models/huge_graph/ready`)).status).toBe(400);
  });
});
