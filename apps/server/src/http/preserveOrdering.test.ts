import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../main.ts';
import { writePythonModel } from '../testing/pythonModels.ts';
import { tempDir } from '../testing/tempDir.ts';
import { call } from '../testing/testServer.ts';

// Triton's `dynamic_batching.preserve_ordering`: with two instances, a slow request and a quick one sent after it
// finish in the other order; with preserve_ordering the quick one's reply still waits for the slow one's.

/** A Python model that sleeps IN seconds and returns IN; two instances, batches of one. */
function sleeper(repo: string, name: string, batching: string): void {
  writePythonModel(
    repo,
    name,
    `name: "${name}"
backend: "python"
max_batch_size: 1
dynamic_batching { ${batching} }
input [{ name: "IN", data_type: TYPE_FP32, dims: [ 1 ] }]
output [{ name: "OUT", data_type: TYPE_FP32, dims: [ 1 ] }]
instance_group [{ count: 2, kind: KIND_CPU }]
`,
    `import time
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for r in requests:
            x = pb_utils.get_input_tensor_by_name(r, "IN").as_numpy()
            time.sleep(float(x.ravel()[0]))
            out.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", x)]))
        return out
`,
  );
}

let s: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  const repo = tempDir('preserve-ordering-');
  sleeper(repo, 'ordered', 'preserve_ordering: true');
  sleeper(repo, 'unordered', '');
  s = await startServer({ repo, port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
});
afterAll(async () => {
  await s?.close();
});

/** Sends a request sleeping 1 s, then one sleeping 0, at once; the order their replies came in. */
async function replyOrder(model: string): Promise<string[]> {
  const order: string[] = [];
  const send = async (name: string, seconds: number) => {
    const r = await call(`${s.url}/v2/models/${model}/infer`, 'POST', {
      inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 1], data: [seconds] }],
    });
    expect(r.status).toBe(200);
    order.push(name);
  };
  await Promise.all([send('slow', 1), send('quick', 0)]);
  return order;
}

describe('dynamic_batching.preserve_ordering', () => {
  it('without it, the quick request sent second replies first (the other instance)', async () => {
    expect(await replyOrder('unordered')).toEqual(['quick', 'slow']);
  });

  it('with it, each reply waits for the replies of the requests before it', async () => {
    expect(await replyOrder('ordered')).toEqual(['slow', 'quick']);
  });
});
