// Issue #23's Triton-fidelity gaps left by the thirteenth hostile round, as regression cases against a real
// `studio serve` (a bystander asking /v2/health/ready from a process of its own): a request that names some of a
// graph's outputs runs only the steps that feed them, and a streamed response waits for those outputs alone, as
// Triton's ensemble prunes its steps and sends a response (`CheckAndSetEnsembleOutput`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectTestClient } from '../../apps/server/src/testing/grpcTestClient.ts';
import { http, spawnStudio } from '../support/server.ts';
import { tempDir } from '../support/tempDir.ts';
import { probedStudio } from './hostileProbe.ts';
import { edgeOf, graphOf, ioNode, modelNode } from '../../apps/server/src/testing/graphBuilders.ts';
import { i32, writeModel, writeSavedGraph } from './writePythonModel.ts';

/** Waits up to 10 s for the file `go_<n>` in the repository's root (a model's `model_repository` is its own folder). */
const waitGo = `            go = os.path.join(os.path.dirname(os.path.normpath(self.repo)), "go_%d" % n)
            for _ in range(200):
                if os.path.exists(go): break
                time.sleep(0.05)`;

let repo = '';
const { studio, probe } = probedStudio(() => {
  repo = tempDir('studio-round14-');
  // Sends OUT = N, then, once the test has seen that response (go_N exists), OUT = N + 1; -1 when it gave up.
  writeModel(
    repo,
    'streamer',
    { inputs: [i32('N')], outputs: [i32('OUT')] },
    `        for r in requests:
            n, s = get(r, "N"), r.get_response_sender()
            s.send(resp(OUT=n))
${waitGo}
            s.send(resp(OUT=n + 1 if os.path.exists(go) else -1), flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)`,
    'model_transaction_policy { decoupled: true }',
  );
  // Answers once go_N exists (or after 10 s).
  writeModel(
    repo,
    'late',
    { inputs: [i32('N')], outputs: [i32('OUT')] },
    `        out = []
        for r in requests:
            n = get(r, "N")
${waitGo}
            out.append(resp(OUT=n * 100))
        return out`,
  );
  writeModel(
    repo,
    'double',
    { inputs: [i32('N')], outputs: [i32('OUT')] },
    '        return [resp(OUT=2 * get(r, "N")) for r in requests]',
  );
  writeModel(
    repo,
    'broken',
    { inputs: [i32('N')], outputs: [i32('OUT')] },
    '        raise pb_utils.TritonModelException("broken")',
  );
  // Calls failing_branch through BLS for its output A alone.
  writeModel(
    repo,
    'caller',
    { inputs: [i32('N')], outputs: [i32('OUT')] },
    `        out = []
        for r in requests:
            call = pb_utils.InferenceRequest(model_name="failing_branch", requested_output_names=["A"],
                inputs=[pb_utils.Tensor("N", np.array([get(r, "N")], np.int32))])
            res = call.exec()
            if res.has_error(): raise pb_utils.TritonModelException(res.error().message())
            out.append(resp(OUT=int(pb_utils.get_output_tensor_by_name(res, "A").as_numpy()[0])))
        return out`,
  );
  writeBranches(repo, 'two_branches', 'streamer', 'late');
  writeBranches(repo, 'failing_branch', 'double', 'broken');
  return spawnStudio(repo);
});

/** Saved graph `name`: N → `a` → output A; N → `b` → output B. */
function writeBranches(repo: string, name: string, a: string, b: string): void {
  const io = (kind: 'input' | 'output', id: string) => ioNode(kind, id, { datatype: 'INT32' });
  const graph = graphOf(
    [io('input', 'N'), modelNode('ma', a), modelNode('mb', b), io('output', 'A'), io('output', 'B')],
    [
      edgeOf('N', 'out', 'ma', 'N'),
      edgeOf('N', 'out', 'mb', 'N'),
      edgeOf('ma', 'OUT', 'A', 'in'),
      edgeOf('mb', 'OUT', 'B', 'in'),
    ],
    name,
  );
  writeSavedGraph(repo, graph);
}

type StreamReply = {
  error_message: string;
  infer_response: { outputs: { name: string }[]; raw_output_contents: Buffer[] };
};

describe('hostile input, fourteenth round (issue #23)', () => {
  it('sends a streamed graph response once the outputs the request names are set, over gRPC ModelStreamInfer', async () => {
    await expect.poll(() => /grpc listening on (\S+)/.test(studio.output())).toBe(true);
    const client = connectTestClient(/grpc listening on (\S+)/.exec(studio.output())![1]!);
    try {
      // Before, the first response waited for B (not asked for), which `late` made only once the test had seen that
      // response: both models gave up after 10 s, and the second response was A: -1.
      const got = await probe(
        'a streamed response naming one output of two branches, ModelStreamInfer',
        () =>
          new Promise<Record<string, number>[]>((resolve, reject) => {
            const got: Record<string, number>[] = [];
            const stream = client.stream();
            stream.on('data', (m: StreamReply) => {
              if (m.error_message) return reject(new Error(m.error_message));
              const { outputs, raw_output_contents: raw } = m.infer_response;
              got.push(
                Object.fromEntries(outputs.map((o, k) => [o.name, new Int32Array(new Uint8Array(raw[k]!).buffer)[0]!])),
              );
              if (got.length === 1) writeFileSync(join(repo, 'go_4'), '');
              if (got.length === 2) stream.end();
            });
            stream.on('error', reject);
            stream.on('end', () => resolve(got));
            stream.write({
              model_name: 'two_branches',
              inputs: [{ name: 'N', datatype: 'INT32', shape: [1] }],
              outputs: [{ name: 'A' }],
              raw_input_contents: [Buffer.from(Int32Array.of(4).buffer)],
            });
          }),
      );
      expect(got).toEqual([{ A: 4 }, { A: 5 }]);
    } finally {
      client.close();
    }
  }, 30_000);

  it('runs only the branch that feeds the outputs an HTTP /infer request names, as Triton prunes the other steps', async () => {
    const infer = (outputs?: string[]) =>
      http(`${studio.url}/v2/models/failing_branch/infer`, {
        method: 'POST',
        body: JSON.stringify({
          inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [3] }],
          ...(outputs ? { outputs: outputs.map((name) => ({ name })) } : {}),
        }),
      });
    // Before, `broken` ran for every request and failed it.
    const asked = await probe('a request naming the output of the branch that works', () => infer(['A']));
    expect([asked.status, (asked.json as { outputs: unknown[] }).outputs]).toEqual([
      200,
      [{ name: 'A', datatype: 'INT32', shape: [1], data: [6] }],
    ]);
    expect((await infer()).status).toBe(500);
  });

  it('and only that branch for a BLS call that names the output', async () => {
    const r = await http(`${studio.url}/v2/models/caller/infer`, {
      method: 'POST',
      body: JSON.stringify({ inputs: [{ name: 'N', datatype: 'INT32', shape: [1], data: [5] }] }),
    });
    expect([r.status, (r.json as { outputs: { data: number[] }[] }).outputs?.[0]?.data]).toEqual([200, [10]]);
  });
});
