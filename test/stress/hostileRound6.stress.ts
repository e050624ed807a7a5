// The sixth independent hostile-input round, as regression cases: an ONNX model whose output an input makes far
// larger than the request, parameters of the wrong type that were taken as something else, and a Python model that
// starts processes of its own (ended here by a crash of its instance; an unload ends them too). Each runs against a
// real `studio serve` with a bystander asking /v2/health/ready from a process of its own.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copyExamples, http, spawnStudio } from '../support/server.ts';
import { writeExpandingOnnxModel } from '../../apps/server/src/testing/expandingOnnxModel.ts';
import { connectTestClient, grpcFailure } from '../../apps/server/src/testing/grpcTestClient.ts';
import { processAlive } from '../../apps/server/src/testing/processAlive.ts';
import { writePythonModels } from '../../apps/server/src/testing/pythonModels.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(() => {
  const repo = copyExamples({ linkModels: true });
  writeExpandingOnnxModel(repo, 'expand');
  writePythonModels(repo, ['forker']);
  return spawnStudio(repo);
});

const LIMIT = 16 * 1024 * 1024;
// Refused before onnxruntime makes it (its size comes from the request: sizeGuard.ts).
const REFUSED = `output 'OUT' of model 'expand' would have 200000000 elements, over the limit maxTensorElements=${LIMIT}; refused before it was made`;

const serverRssMb = () =>
  Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${studio.child.pid}/status`, 'utf8'))![1]) / 1024);

const post = (path: string, body: object) =>
  http(`${studio.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
const expand = (n: number, parameters: object = {}) =>
  post('/v2/models/expand/infer', {
    parameters,
    inputs: [{ name: 'SHAPE', datatype: 'INT64', shape: [1], data: [n] }],
  });

describe('hostile input, sixth round', () => {
  it("an ONNX model's output over the limits is refused naming the model and output, and its memory goes back", async () => {
    const before = serverRssMb();
    const json = await probe('ONNX output of 200 M elements (JSON)', () => expand(200_000_000));
    expect([json.status, json.json.error]).toEqual([500, REFUSED]);
    const binary = await probe('ONNX output of 200 M elements (binary)', () =>
      expand(200_000_000, { binary_data_output: true }),
    );
    expect([binary.status, binary.json.error]).toEqual([500, REFUSED]);
    await expect.poll(() => /grpc listening on (\S+)/.test(studio.output())).toBe(true);
    const client = connectTestClient(/grpc listening on (\S+)/.exec(studio.output())![1]!);
    const request = {
      model_name: 'expand',
      inputs: [{ name: 'SHAPE', datatype: 'INT64', shape: [1], contents: { int64_contents: [200_000_000] } }],
    };
    const grpc = await probe('ONNX output of 200 M elements (gRPC)', () =>
      grpcFailure(client.call('ModelInfer', request)),
    );
    client.close();
    expect(grpc.details).toBe(REFUSED);
    // The instance serves on, and nothing of the three refusals (800 MB each, when made) is kept.
    const within = await expand(LIMIT / 4);
    expect(within.json.outputs?.[0]?.shape).toEqual([LIMIT / 4]);
    expect(serverRssMb() - before).toBeLessThan(400);
  }, 120_000);

  it("request and output parameters of the wrong type are refused with Triton's words, not read as false", async () => {
    const x = { name: 'x', datatype: 'FP32', shape: [1, 8], data: new Array(8).fill(1) };
    const start = await probe('sequence_start "true"', () =>
      post('/v2/models/accumulator/infer', { parameters: { sequence_id: 41, sequence_start: 'true' }, inputs: [x] }),
    );
    expect([start.status, start.json.error]).toEqual([
      400,
      "Unable to parse 'sequence_start': attempt to access JSON non-boolean as boolean",
    ]);
    const feat = { name: 'feat', datatype: 'FP32', shape: [1, 256], data: new Array(256).fill(0.5) };
    const binary = await probe('output binary_data 1', () =>
      post('/v2/models/head_a/infer', {
        inputs: [feat],
        outputs: [{ name: 'logits', parameters: { binary_data: 1 } }],
      }),
    );
    expect([binary.status, binary.json.error]).toEqual([
      400,
      "Unable to parse 'binary_data': attempt to access JSON non-boolean as boolean",
    ]);
  });

  it('a process a Python model forks ends with its instance, and the restarted instance serves', async () => {
    const forker = (x: number) =>
      post('/v2/models/forker/infer', { inputs: [{ name: 'X', datatype: 'FP32', shape: [1], data: [x] }] });
    const child = Number((await forker(1)).json.outputs[0].data[0]);
    expect(processAlive(child)).toBe(true);
    const died = await probe('a Python instance with a forked child dies', () => forker(-1));
    expect(died.status).toBe(500);
    await expect.poll(() => processAlive(child), { timeout: 10_000 }).toBe(false);
    await expect.poll(async () => (await forker(1)).status, { timeout: 20_000, interval: 250 }).toBe(200);
  }, 60_000);
});
