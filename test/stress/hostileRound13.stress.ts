// Issue #23's Triton-fidelity gaps left by the eleventh hostile round, as regression cases against a real
// `studio serve` (a bystander asking /v2/health/ready from a process of its own): a decoupled Python model whose
// responses leave out an output of its config (sent at once, over HTTP generate_stream and gRPC ModelStreamInfer),
// and a saved graph whose step is starved of an input by such a model (refused with the model's input count
// message, over HTTP and the WebSocket run; run without it when the input is optional).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectTestClient } from '../../apps/server/src/testing/grpcTestClient.ts';
import { sseEvents } from '../../apps/server/src/testing/sseEvents.ts';
import { http, spawnStudio } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { connect } from '../support/wsClient.ts';
import { probedStudio } from './hostileProbe.ts';
import { edgeOf, graphOf, ioNode, modelNode } from '../../apps/server/src/testing/graphBuilders.ts';
import { i32, writeModel, writeSavedGraph } from './writePythonModel.ts';

/** A saved graph: N → omitter; omitter.OUT → `step`.A, omitter.S → `step`.B; `step`.OUT → graph output Z. */
function writeGraph(repo: string, name: string, step: string): void {
  const io = (kind: 'input' | 'output', id: string) => ioNode(kind, id, { datatype: 'INT32' });
  const graph = graphOf(
    [io('input', 'N'), modelNode('omitter'), modelNode('step', step), io('output', 'Z')],
    [
      edgeOf('N', 'out', 'omitter', 'N'),
      edgeOf('omitter', 'OUT', 'step', 'A'),
      edgeOf('omitter', 'S', 'step', 'B'),
      edgeOf('step', 'OUT', 'Z', 'in'),
    ],
    name,
  );
  writeSavedGraph(repo, graph);
}

let repo = '';
const { studio, probe } = probedStudio(() => {
  repo = tempDir('studio-round13-');
  // Sends OUT = N without S, then OUT = N + 1 and S: 7 once the test has seen the first response (its file go_N
  // exists), -1 when it gave up waiting after 10 s; then FINAL.
  writeModel(
    repo,
    'dec_omit',
    { inputs: [i32('N')], outputs: [i32('OUT'), i32('S')] },
    `        for r in requests:
            n, s = get(r, "N"), r.get_response_sender()
            s.send(resp(OUT=n))
            go = os.path.join(self.repo, "go_%d" % n)
            for _ in range(200):
                if os.path.exists(go): break
                time.sleep(0.05)
            s.send(resp(OUT=n + 1, S=7 if os.path.exists(go) else -1), flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)`,
    'model_transaction_policy { decoupled: true }',
  );
  writeModel(
    repo,
    'omitter',
    { inputs: [i32('N')], outputs: [i32('OUT'), i32('S')] },
    '        return [resp(OUT=get(r, "N")) for r in requests]',
  );
  writeModel(
    repo,
    'needs',
    { inputs: [i32('A'), i32('B')], outputs: [i32('OUT')] },
    '        return [resp(OUT=get(r, "A") + get(r, "B")) for r in requests]',
  );
  writeModel(
    repo,
    'opt_needs',
    { inputs: [i32('A'), i32('B', true)], outputs: [i32('OUT')] },
    '        return [resp(OUT=get(r, "A") * 10 + (get(r, "B") is None)) for r in requests]',
  );
  writeGraph(repo, 'starve', 'needs');
  writeGraph(repo, 'starve_opt', 'opt_needs');
  return spawnStudio(repo);
});

// `model_repository` in a Python model's args is its own directory.
const go = (n: number) => writeFileSync(join(repo, 'dec_omit', `go_${n}`), '');
const STARVED =
  "in ensemble 'starve', [request id: <id_unknown>] expected 2 inputs but got 1 inputs for model 'needs'. Got input(s) ['A'], but missing required input(s) ['B']. Please provide all required input(s).";

/** Each event of a `generate_stream` of dec_omit (its outputs by name); `go_n` is written once the first arrives. */
async function generateStream(n: number): Promise<{ status: number; events: Record<string, unknown>[] }> {
  const res = await fetch(`${studio.url}/v2/models/dec_omit/generate_stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ N: [n] }),
  });
  const events: Record<string, unknown>[] = [];
  for await (const event of sseEvents(res)) {
    events.push(event);
    if (events.length === 1) go(n);
  }
  return { status: res.status, events };
}

describe('hostile input, thirteenth round (issue #23)', () => {
  it("sends a decoupled model's response that leaves out an output at once, over HTTP generate_stream", async () => {
    // The first response was held to the run's end, which came only once the model gave up waiting (S: -1).
    const r = await probe('a decoupled response lacking an output, generate_stream', () => generateStream(1));
    const head = { model_name: 'dec_omit', model_version: '1' };
    expect(r).toEqual({
      status: 200,
      events: [
        { ...head, OUT: 1 },
        { ...head, OUT: 2, S: 7 },
      ],
    });
  }, 30_000);

  it('and over gRPC ModelStreamInfer', async () => {
    const client = connectTestClient(/grpc listening on (\S+)/.exec(studio.output())![1]!);
    try {
      const got = await probe(
        'a decoupled response lacking an output, ModelStreamInfer',
        () =>
          new Promise<Record<string, number>[]>((resolve, reject) => {
            const got: Record<string, number>[] = [];
            const stream = client.stream();
            stream.on(
              'data',
              (m: { infer_response: { outputs: { name: string }[]; raw_output_contents: Buffer[] } }) => {
                const { outputs, raw_output_contents: raw } = m.infer_response;
                got.push(
                  Object.fromEntries(
                    outputs.map((o, k) => [o.name, new Int32Array(new Uint8Array(raw[k]!).buffer)[0]!]),
                  ),
                );
                if (got.length === 1) go(2);
                if (got.length === 2) stream.end();
              },
            );
            stream.on('error', reject);
            stream.on('end', () => resolve(got));
            stream.write({
              model_name: 'dec_omit',
              inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }],
              raw_input_contents: [Buffer.from(Int32Array.of(2).buffer)],
            });
          }),
      );
      expect(got).toEqual([{ OUT: 2 }, { OUT: 3, S: 7 }]);
    } finally {
      client.close();
    }
  }, 30_000);

  const inferGraph = (graph: string, id?: string) =>
    http(`${studio.url}/v2/models/${graph}/infer`, {
      method: 'POST',
      body: JSON.stringify({
        ...(id ? { id } : {}),
        inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [3] }],
      }),
    });

  it("refuses a graph step starved of a required input with the model's input count message", async () => {
    // It failed with 500 "in ensemble 'starve', output Z was not produced: no more nodes can run".
    const r = await probe('a step starved by an omitted output', () => inferGraph('starve'));
    expect([r.status, r.json]).toEqual([400, { error: STARVED }]);
    // The step's request carries the ensemble request's id (core's InitStep), which its message names.
    const named = await inferGraph('starve', 'k1');
    expect(named.json).toEqual({ error: STARVED.replace('<id_unknown>', 'k1') });
  });

  it('runs the step without the input when it is optional', async () => {
    const r = await inferGraph('starve_opt');
    expect(r.status).toBe(200);
    expect((r.json as { outputs: { name: string; data: number[] }[] }).outputs).toMatchObject([
      { name: 'Z', data: [31] },
    ]);
  });

  it('fails the WebSocket run of the starved graph with the same words', async () => {
    const ws = await connect(studio.url);
    try {
      ws.send({
        type: 'run.start',
        requestId: 'w',
        graph: 'starve',
        inputs: { N: { datatype: 'INT32', shape: [1], data: [3] } },
      });
      const end = await ws.next((m) => m.type === 'run.failed' || m.type === 'run.completed', 20_000);
      expect([end.type, end.error?.message]).toEqual(['run.failed', STARVED]);
    } finally {
      ws.close();
    }
  });
});
