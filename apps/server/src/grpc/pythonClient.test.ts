// Python's grpcio, with stubs generated at test time from our .proto by grpc_tools, against a real studio:
// a client that is not our server's code checks the wire (unary, typed and raw tensors, sequences, streams).
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tensorToBytes } from '../http/kserveTensors.ts';
import { decodeImage } from '../io/image.ts';
import { DEFAULT_REPO, startServer, type RunningServer } from '../main.ts';
import { makeFixtures } from '../testing/smokeSupport.ts';
import { tempDir } from '../testing/tempDir.ts';
import { PROTO_DIR } from './loadService.ts';
import { startGrpcServer, type GrpcServer } from './server.ts';

const PYTHON = '/usr/bin/python3';
const CLIENT = join(dirname(fileURLToPath(import.meta.url)), 'pythonClient.py');

let s: RunningServer;
let g: GrpcServer;
beforeAll(async () => {
  s = await startServer({ repo: DEFAULT_REPO, port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
  g = await startGrpcServer(s.studio, '127.0.0.1', 0);
}, 120_000);
afterAll(async () => {
  await g?.close();
  await s?.close();
});

/** Runs pythonClient.py against the server (asynchronously: the server answers on this event loop); its stubs are generated from PROTO_DIR into a scratch dir. */
async function runPythonClient(): Promise<Record<string, any>> {
  const dir = tempDir('grpc-python-');
  try {
    execFileSync(
      PYTHON,
      [
        '-m',
        'grpc_tools.protoc',
        `-I${PROTO_DIR}`,
        `--python_out=${dir}`,
        `--grpc_python_out=${dir}`,
        'grpc_service.proto',
        'model_config.proto',
      ],
      { stdio: 'pipe' },
    );
  } catch (err) {
    throw new Error(
      `${PYTHON} cannot generate gRPC stubs (apt install python3-grpcio python3-grpc-tools): ${String((err as { stderr?: Buffer }).stderr ?? err)}`,
      { cause: err },
    );
  }
  const fixtures = makeFixtures();
  const images: Record<string, { path: string; shape: number[] }> = {};
  for (const name of ['hello', 'blank'] as const) {
    const t = decodeImage(readFileSync(fixtures[name]));
    const path = join(dir, `${name}.raw`);
    writeFileSync(path, tensorToBytes(t));
    images[name] = { path, shape: [...t.shape] };
  }
  writeFileSync(join(dir, 'images.json'), JSON.stringify(images));
  const { stdout } = await promisify(execFile)(PYTHON, [CLIENT, g.address, dir, join(dir, 'images.json')], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(stdout) as Record<string, any>;
}

describe('a Python grpcio client with stubs generated from our .proto', () => {
  it('drives unary, typed and raw tensors, sequences, errors and ocr streaming', async () => {
    const r = await runPythonClient();
    expect(r.live).toBe(true);
    expect(r.metadata.inputs).toEqual([['x', 'FP32', [-1, 64]]]);
    expect(r.chunk_stream_decoupled).toBe(true);
    expect(r.unary).toEqual({ id: 'raw-1', outputs: [['feat', [1, 256]]], typed_equals_raw: true });
    expect(r.sequence).toEqual([1, 10, 3, 20, 6]);
    expect(r.unknown).toEqual(['NOT_FOUND', "Request for unknown model: 'nope' is not found"]);
    expect(r.unary_ocr[0]).toBe('UNIMPLEMENTED');
    expect(r.stream_hello).toHaveLength(1);
    expect(r.stream_hello[0]).toMatchObject({ error: '', id: 'h', final: false });
    expect(r.stream_hello[0].texts.join(' ')).toContain('HELLO 2026');
    expect(
      r.stream_hello_final.map((m: { id: string; final: boolean; outputs: string[] }) => [
        m.id,
        m.final,
        m.outputs.length,
      ]),
    ).toEqual([
      ['hf', false, 4],
      ['hf', true, 0],
    ]);
    expect(r.stream_blank).toEqual([]);
    expect(r.stream_blank_final).toEqual([{ error: '', id: 'bf', outputs: [], texts: null, final: true }]);
    const [bad, ok] = [
      r.stream_error_then_ok.find((m: { id: string }) => m.id === 'bad'),
      r.stream_error_then_ok.find((m: { id: string }) => m.id === 'ok'),
    ];
    expect(bad.error).toBe("Request for unknown model: 'nope' is not found");
    expect(ok.error).toBe('');
    expect(ok.texts.join(' ')).toContain('HELLO 2026');
  }, 180_000);
});
