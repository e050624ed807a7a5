import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamAll } from '../testing/grpcTestClient.ts';
import { startGrpcTestServer, type GrpcTestServer } from '../testing/grpcTestServer.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { connect } from '../testing/wsTestClient.ts';
import { MAX_ERROR_MESSAGE } from './errors.ts';

// A model that quotes its request in its error, as a model validating user text might: the error then
// carries whatever the client sent.
const ECHO_ERROR = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        text = pb_utils.get_input_tensor_by_name(requests[0], "TEXT").as_numpy()[0].decode()
        raise pb_utils.TritonModelException("cannot read " + text)
`;
const ECHO_CONFIG = `name: "echo_error"
backend: "python"
input [ { name: "TEXT" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_STRING dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
`;

const longText = 'n'.repeat(100_000);
const limit = MAX_ERROR_MESSAGE + 100;

let t: GrpcTestServer;
beforeAll(async () => {
  const repo = makeTestRepository();
  mkdirSync(join(repo, 'echo_error', '1'), { recursive: true });
  writeFileSync(join(repo, 'echo_error', 'config.pbtxt'), ECHO_CONFIG);
  writeFileSync(join(repo, 'echo_error', '1', 'model.py'), ECHO_ERROR);
  t = await startGrpcTestServer({ repo });
});
afterAll(async () => {
  await t?.close();
});

/** The `data:` events of an SSE body, parsed. */
function events(body: string): Record<string, unknown>[] {
  return body
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => JSON.parse(e.slice('data: '.length)) as Record<string, unknown>);
}

describe('errors that arrive on a stream do not echo hostile input in full', () => {
  it('generate_stream: an error event after the stream started is capped', async () => {
    const r = await fetch(`${t.s.url}/v2/models/echo_error/generate_stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ TEXT: longText }),
    });
    expect(r.status).toBe(200);
    const body = await r.text();
    const [event] = events(body);
    expect(event?.error).toMatch(/cannot read n+… \(\d+ more characters\)$/);
    expect(body.length).toBeLessThan(limit);
  });

  it('generate: the JSON error is capped', async () => {
    const r = await fetch(`${t.s.url}/v2/models/echo_error/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ TEXT: longText }),
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect((await r.text()).length).toBeLessThan(limit);
  });

  it('gRPC ModelInfer: a 100 KB input name is not echoed in the status details', async () => {
    const err = await t.c
      .call('ModelInfer', {
        model_name: 'extractor',
        inputs: [{ name: longText, datatype: 'FP32', shape: [1, 64] }],
        raw_input_contents: [Buffer.alloc(256)],
      })
      .then(
        () => undefined,
        (e: { details: string }) => e,
      );
    expect(err?.details).toMatch(/^unexpected inference input 'n+… \(\d+ more characters\)$/);
    expect(err!.details.length).toBeLessThan(limit);
  });

  it('gRPC ModelStreamInfer: an error_message is capped', async () => {
    const messages = await streamAll(t.c, [
      {
        model_name: 'echo_error',
        inputs: [
          { name: 'TEXT', datatype: 'BYTES', shape: [1], contents: { bytes_contents: [Buffer.from(longText)] } },
        ],
      },
    ]);
    const withError = messages.find((m) => m.error_message !== '');
    expect(withError?.error_message).toMatch(/cannot read n+… \(\d+ more characters\)$/);
    expect(withError!.error_message.length).toBeLessThan(limit);
  });

  it("WebSocket: a node's failure message is capped in node.failed and run.failed", async () => {
    const ws = await connect(t.s.url);
    try {
      ws.send({
        type: 'run.start',
        requestId: 'r',
        graph: 'echo_error',
        inputs: { TEXT: { datatype: 'BYTES', shape: [1], data: [longText] } },
      });
      const node = await ws.next('node.failed');
      expect(node.message).toMatch(/cannot read n+… \(\d+ more characters\)$/);
      const run = await ws.next('run.failed');
      expect(run.error.message.length).toBeLessThan(limit);
    } finally {
      await ws.close();
    }
  });

  it('an unknown /v2 endpoint with a long path is not echoed in full', async () => {
    const r = await fetch(`${t.s.url}/v2/${'p'.repeat(8000)}`);
    expect(r.status).toBe(404);
    expect((await r.text()).length).toBeLessThan(limit);
  });
});
