import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { startServer } from '../main.ts';
import { startGrpcServer, type GrpcServer } from '../grpc/server.ts';
import { connectTestClient, grpcFailure, type TestClient } from '../testing/grpcTestClient.ts';
import { tempDir } from '../testing/tempDir.ts';
import { call } from '../testing/testServer.ts';
import { LogSettings } from './logSettings.ts';

// Triton's logging extension: the server log shows a Python model's lines by their level as the settings say, and
// the settings are read and changed over HTTP and gRPC with Triton's defaults, checks and words.

const MODEL = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        log = pb_utils.Logger
        n = int(pb_utils.get_input_tensor_by_name(requests[0], "IN").as_numpy()[0])
        log.log_info(f"info {n}")
        log.log_warn(f"warn {n}")
        log.log_error(f"error {n}")
        log.log_verbose(f"verbose {n}")
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", pb_utils.get_input_tensor_by_name(r, "IN").as_numpy())])
                for r in requests]
`;
const CONFIG = `name: "talker"
backend: "python"
input [{ name: "IN", data_type: TYPE_FP32, dims: [ 1 ] }]
output [{ name: "OUT", data_type: TYPE_FP32, dims: [ 1 ] }]
`;

let s: Awaited<ReturnType<typeof startServer>>;
let g: GrpcServer;
let c: TestClient;
const lines: string[] = [];

beforeAll(async () => {
  const repo = tempDir('log-settings-');
  mkdirSync(join(repo, 'talker', '1'), { recursive: true });
  writeFileSync(join(repo, 'talker', 'config.pbtxt'), CONFIG);
  writeFileSync(join(repo, 'talker', '1', 'model.py'), MODEL);
  s = await startServer({ repo, port: 0, host: '127.0.0.1', webDist: '/nonexistent', modelLog: (l) => lines.push(l) });
  g = await startGrpcServer(s.studio, '127.0.0.1', 0);
  c = connectTestClient(g.address);
});
afterAll(async () => {
  c?.close();
  await g?.close();
  await s?.close();
});

/** The model's lines of request `n` in the server log (they are written as the execute reports them). */
async function logged(n: number): Promise<string[]> {
  const r = await call(`${s.url}/v2/models/talker/infer`, 'POST', {
    inputs: [{ name: 'IN', datatype: 'FP32', shape: [1], data: [n] }],
  });
  expect(r.status).toBe(200);
  return lines.filter((l) => l.endsWith(` ${n}`)).map((l) => l.replace(/^.*\] /, ''));
}

describe("Triton's logging extension", () => {
  it("shows what Triton's defaults show: info, warnings and errors, no verbose lines", async () => {
    expect((await call(`${s.url}/v2/logging`)).json).toEqual({
      log_file: '',
      log_info: true,
      log_warning: true,
      log_error: true,
      log_verbose_level: 0,
      log_format: 'default',
    });
    expect(await logged(1)).toEqual(['info 1', 'warn: warn 1', 'error: error 1']);
  });

  it('changes over HTTP what the log shows, and reports the settings', async () => {
    const r = await call(`${s.url}/v2/logging`, 'POST', {
      log_info: false,
      log_verbose_level: 1,
      log_format: 'ISO8601',
    });
    expect(r.json).toMatchObject({ log_info: false, log_verbose_level: 1, log_format: 'ISO8601' });
    expect(await logged(2)).toEqual(['warn: warn 2', 'error: error 2', 'verbose: verbose 2']);
    expect(lines.find((l) => l.endsWith('error 2'))).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \[talker_0\] /);
  });

  it('changes over gRPC the same settings', async () => {
    const r = await c.call('LogSettings', {
      settings: {
        log_info: { bool_param: true },
        log_error: { bool_param: false },
        log_format: { string_param: 'default' },
      },
    });
    expect(r.settings.log_error).toMatchObject({ bool_param: false });
    expect(r.settings.log_verbose_level).toMatchObject({ uint32_param: 1 });
    expect(await logged(3)).toEqual(['info 3', 'warn: warn 3', 'verbose: verbose 3']);
    expect((await call(`${s.url}/v2/logging`)).json).toMatchObject({ log_info: true, log_error: false });
  });

  it("refuses what Triton refuses, in Triton's words", async () => {
    const post = async (body: unknown) => {
      const r = await call(`${s.url}/v2/logging`, 'POST', body);
      return [r.status, r.json.error];
    };
    expect(await post({ log_file: '/tmp/x' })).toEqual([
      501,
      'log file location can not be updated through network protocol',
    ]);
    expect(await post({ log_info: 'yes' })).toEqual([400, 'attempt to access JSON non-boolean as boolean']);
    expect(await post({ log_verbose_level: -1 })).toEqual([
      400,
      'attempt to access JSON non-unsigned-integer as unsigned-integer',
    ]);
    expect(await post({ log_format: 'json' })).toEqual([503, 'invalid argument for --log_format, got: json']);
    expect((await call(`${s.url}/v2/logging`, 'PUT', {})).status).toBe(405);
    // JSON that is not an object names no setting (Triton's reader finds none): the settings come back unchanged.
    expect(await call(`${s.url}/v2/logging`, 'POST', '[1]')).toMatchObject({ status: 200, json: { log_error: false } });
    expect(await grpcFailure(c.call('LogSettings', { settings: { log_warning: { uint32_param: 1 } } }))).toEqual({
      code: status.INVALID_ARGUMENT,
      details: "expect boolean for 'log_warning'",
    });
    expect(await grpcFailure(c.call('LogSettings', { settings: { log_file: { string_param: '/tmp/x' } } }))).toEqual({
      code: status.UNIMPLEMENTED,
      details: 'log file location can not be updated through network protocol',
    });
  });
});

describe('LogSettings', () => {
  it('starts at the verbose level it is given, and a null leaves a setting as it is', () => {
    const l = new LogSettings(2);
    expect([l.shows('verbose'), l.shows('info')]).toEqual([true, true]);
    l.updateFromJson({ log_verbose_level: null, log_info: false });
    expect([l.values.log_verbose_level, l.shows('info'), l.shows('warn')]).toEqual([2, false, true]);
  });
});
