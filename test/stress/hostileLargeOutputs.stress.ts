// Hostile input, what the fourth round left open: outputs made large by the client's request (a decoupled model
// streaming millions of numbers per response over generate_stream and /generate, the classes of a million-element
// output asked for all at once over HTTP and gRPC, a Python output over the tensor limit) and a body over the limit
// sent with `Expect: 100-continue`. Each
// asserts the answer and that a bystander's /v2/health/ready, asked from a process of its own, kept answering.
import { connect as tcpConnect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnStudio } from '../support/server.ts';
import { connectTestClient, streamAll } from '../../apps/server/src/testing/grpcTestClient.ts';
import { writeLargeOutputModels } from '../../apps/server/src/testing/largeOutputModels.ts';
import { makeTestRepository } from '../../apps/server/src/testing/testRepository.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(async () => {
  const repo = makeTestRepository();
  writeLargeOutputModels(repo, 1000);
  return spawnStudio(repo);
});
const post = (model: string, route: string, body: unknown) =>
  fetch(`${studio.url}/v2/models/${model}/${route}`, { method: 'POST', body: JSON.stringify(body) });
const M = 1_000_000;

/** The SSE events of a generate_stream answer, parsed. */
const events = (text: string) =>
  text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => JSON.parse(e.slice('data: '.length)) as Record<string, unknown>);

describe('hostile input against studio serve: large outputs and 100-continue', () => {
  it('generate_stream events of 4 M numbers each come in order, written off the main thread', async () => {
    const text = await probe('generate_stream, 2 events of 4 M numbers', () =>
      post('large_stream', 'generate_stream', { SIZES: [4 * M, 4 * M] }).then((r) => r.text()),
    );
    const got = events(text);
    expect(got.map((e) => [e.INDEX, (e.OUT as number[]).length, (e.OUT as number[])[1]])).toEqual([
      [0, 4 * M, 1],
      [1, 4 * M, 2],
    ]);
  });

  it("/generate answers a decoupled model's one response of 4 M numbers", async () => {
    const json = await probe('/generate, a decoupled response of 4 M numbers', () =>
      post('large_stream', 'generate', { SIZES: [4 * M] }).then((r) => r.json() as Promise<{ OUT: number[] }>),
    );
    expect([json.OUT.length, json.OUT.at(-1)]).toEqual([4 * M, 4 * M - 1]);
  });

  it('the classes of a million-element output, a million over HTTP, 150 k over gRPC', async () => {
    const size = { name: 'SIZE', datatype: 'INT64', shape: [1] };
    const json = await probe('HTTP classification: 1 M of 1 M', () =>
      post('large_output', 'infer', {
        inputs: [{ ...size, data: [M] }],
        outputs: [{ name: 'OUT', parameters: { classification: M } }],
      }).then((r) => r.json() as Promise<{ outputs: { shape: number[]; data: string[] }[] }>),
    );
    expect(json.outputs[0]!.shape).toEqual([M]);
    expect(json.outputs[0]!.data[0]).toMatch(/^999999\.000000:\d+$/);
    const client = connectTestClient(/grpc listening on (\S+)/.exec(studio.output())![1]!);
    try {
      // As many classes as the test client takes in one message (4 MiB).
      const K = 150_000;
      const classification = { classification: { int64_param: K } };
      const raw = [Buffer.from(BigInt64Array.of(BigInt(M)).buffer)];
      const res = await probe('gRPC ModelInfer classification: 150 k of 1 M', () =>
        client.call('ModelInfer', {
          model_name: 'large_output',
          inputs: [size],
          raw_input_contents: raw,
          outputs: [{ name: 'OUT', parameters: classification }],
        }),
      );
      expect(res.outputs[0].shape.map(Number)).toEqual([K]);
      const streamed = await probe('gRPC stream classification: 150 k of 1 M, twice', () =>
        streamAll(client, [
          {
            model_name: 'large_stream',
            inputs: [{ name: 'SIZES', datatype: 'INT64', shape: [2] }],
            raw_input_contents: [Buffer.from(BigInt64Array.of(BigInt(M), BigInt(M)).buffer)],
            outputs: [{ name: 'OUT', parameters: classification }],
          },
        ]),
      );
      expect(streamed.map((m) => [m.error_message, m.infer_response!.outputs[0]!.shape.map(Number)])).toEqual([
        ['', [K]],
        ['', [K]],
      ]);
    } finally {
      client.close();
    }
  });

  it("a Python model's output of 200 M elements is refused in its stub, over maxTensorElements, never gathered", async () => {
    const size = { name: 'SIZE', datatype: 'INT64', shape: [1], data: [200 * M] };
    const answer = await probe('a Python output of 200 M elements', () =>
      post('large_output', 'infer', { inputs: [size], outputs: [{ name: 'OUT', parameters: { binary_data: true } }] })
        // Read to the end whatever comes (the whole output, where it is not refused).
        .then(async (r) => [r.status, Buffer.from(await r.arrayBuffer()).toString('utf8', 0, 1000)] as const),
    );
    expect(answer[0]).toBe(500);
    expect(answer[1]).toContain(
      "output 'OUT' of model 'large_output' has 200000000 elements, over the limit maxTensorElements=16777216",
    );
  });

  it('a body over the limit sent with Expect: 100-continue gets its 413 without a 100 first', async () => {
    const u = new URL(studio.url);
    const answer = await probe('Expect: 100-continue, 10^12 bytes', () => {
      const head = `POST /v2/models/large_output/infer HTTP/1.1\r\nHost: ${u.host}\r\nExpect: 100-continue\r\nContent-Length: 1000000000000\r\n\r\n`;
      return new Promise<string>((resolve, reject) => {
        const s = tcpConnect(Number(u.port), u.hostname);
        let got = '';
        s.on('data', (d) => (got += d.toString('latin1')));
        s.on('end', () => resolve(got));
        s.on('error', reject);
        s.write(head);
      });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).not.toContain('100 Continue');
  });
});
