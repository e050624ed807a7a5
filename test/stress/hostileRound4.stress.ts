// Hostile input, fourth round: what a later independent probe of the real `studio serve` still found getting
// through (pipelined floods, an export zipped on the main thread, bodies announced over the limit, Triton's checks
// of where an input's data is and of gRPC parameters). Each asserts the answer and that a bystander's
// /v2/health/ready, asked from a process of its own, kept answering while it was in flight.
import { connect as tcpConnect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { copyExamples, http, spawnStudio } from '../support/server.ts';
import { connectTestClient, grpcFailure } from '../../apps/server/src/testing/grpcTestClient.ts';
import { probedStudio } from './hostileProbe.ts';

const { studio, probe } = probedStudio(() => spawnStudio(copyExamples({ linkModels: true })));
const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}) =>
  http(`${studio.url}${path}`, { method: 'POST', body, headers });

/** Writes `text` on a connection of its own and reads until the server closes it or `until` matches what came back. */
function exchange(text: string | Buffer, until: (got: string) => boolean): Promise<string> {
  const u = new URL(studio.url);
  return new Promise((resolve, reject) => {
    const s = tcpConnect(Number(u.port), u.hostname);
    let got = '';
    const done = () => {
      s.destroy();
      resolve(got);
    };
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (until(got)) done();
    });
    s.on('end', done);
    s.on('error', reject);
    s.write(text);
  });
}

describe('hostile input against studio serve, fourth round', () => {
  it('3,000 pipelined requests in one write are answered in order without holding other clients', async () => {
    const host = new URL(studio.url).host;
    const flood = `GET /v2/models/ocr/config HTTP/1.1\r\nHost: ${host}\r\n\r\n`.repeat(3000);
    const answers = await probe('3,000 pipelined GET /config', () =>
      exchange(flood, (got) => got.split('HTTP/1.1 200 ').length - 1 === 3000),
    );
    expect(answers.split('HTTP/1.1 200 ').length - 1).toBe(3000);
  });

  it('an export is compiled and zipped off the main thread', async () => {
    const r = await probe('export ocr (15 MB zip)', () =>
      fetch(`${studio.url}/api/export`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ graph: 'ocr' }),
      }).then(async (res) => ({ status: res.status, bytes: (await res.arrayBuffer()).byteLength })),
    );
    expect(r.status).toBe(200);
    expect(r.bytes).toBeGreaterThan(1_000_000);
  });

  it('a body announced over the limit is refused before it is sent', async () => {
    const host = new URL(studio.url).host;
    const head = `POST /v2/models/extractor/infer HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 1000000000000\r\n\r\n{`;
    const answer = await probe('Content-Length 10^12', () => exchange(head, () => false));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('request body is over the limit maxBodyBytes=67108864');
  });

  it("an input's data in two places, or in shared memory, is refused with Triton's words", async () => {
    const header = Buffer.from(
      JSON.stringify({
        inputs: [
          {
            name: 'x',
            datatype: 'FP32',
            shape: [1, 64],
            data: new Array(64).fill(1),
            parameters: { binary_data_size: 256 },
          },
        ],
      }),
    );
    const both = await probe('data beside binary_data_size', () =>
      post('/v2/models/extractor/infer', Buffer.concat([header, Buffer.alloc(256)]), {
        'content-type': 'application/octet-stream',
        'inference-header-content-length': String(header.byteLength),
      }),
    );
    expect([both.status, both.json.error]).toEqual([
      400,
      "Input must set only one of the following fields: 'data', 'binary_data_size' in 'parameters', 'shared_memory_region' in 'parameters'. But set 'data' 'binary_data_size'",
    ]);
    const shm = await probe('shared_memory_region', () =>
      post(
        '/v2/models/extractor/infer',
        JSON.stringify({
          inputs: [
            {
              name: 'x',
              datatype: 'FP32',
              shape: [1, 64],
              parameters: { shared_memory_region: 'r', shared_memory_byte_size: 256 },
            },
          ],
        }),
      ),
    );
    expect([shm.status, shm.json.error]).toEqual([404, "Unable to find shared memory region: 'r'"]);
  });

  it('gRPC: an input named __proto__ is an unknown input; a parameter of the wrong type is refused', async () => {
    const client = connectTestClient(/grpc listening on (\S+)/.exec(studio.output())![1]!);
    try {
      const infer = (input: object, parameters: object = {}) =>
        client.call('ModelInfer', {
          model_name: 'extractor',
          parameters,
          inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 64], ...input }],
          raw_input_contents: [Buffer.alloc(256)],
        });
      const proto = await probe('gRPC input __proto__', () => grpcFailure(infer({ name: '__proto__' })));
      expect(proto.details).toBe("unexpected inference input '__proto__' for model 'extractor'");
      const start = await probe('gRPC sequence_start as int64', () =>
        grpcFailure(infer({}, { sequence_start: { int64_param: 1 } })),
      );
      expect(start.details).toBe("invalid value type for 'sequence_start' parameter, expected bool_param.");
    } finally {
      client.close();
    }
  });
});
