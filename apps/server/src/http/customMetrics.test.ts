import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../main.ts';
import { tempDir } from '../testing/tempDir.ts';
import { call } from '../testing/testServer.ts';
import { startMetricsServer, type MetricsServer } from './metricsServer.ts';

// A Python model with a metric family of each kind, run by the server: what it reports reaches /metrics on the HTTP
// port and on the metrics port, one series shared by its two instances, and leaves with them.

const MODEL = `
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def initialize(self, args):
        name, instance = args["model_name"], args["model_instance_name"]
        self.requests = pb_utils.MetricFamily(name="requests_total", description="Requests seen",
                                              kind=pb_utils.MetricFamily.COUNTER).Metric(labels={"model": name})
        self.size = pb_utils.MetricFamily(name="last_size", description="Elements in the last request",
                                          kind=pb_utils.MetricFamily.GAUGE).Metric(labels={"instance": instance})
        self.values = pb_utils.MetricFamily(name="input_values", description="Input values",
                                            kind=pb_utils.MetricFamily.HISTOGRAM).Metric(labels={"model": name},
                                                                                         buckets=[1.0, 10.0])
        try:
            pb_utils.MetricFamily(name="requests_total", description="again", kind=pb_utils.MetricFamily.GAUGE)
            raise RuntimeError("a family declared again as another kind was taken")
        except ValueError:
            pass

    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            if x.size and x.min() < 0:
                raise ValueError("negative input")
            self.requests.increment(1)
            self.size.set(float(x.size))
            for v in x.flat:
                self.values.observe(float(v))
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", x)]))
        return responses
`;

const CONFIG = `name: "counted"
backend: "python"
input [{ name: "IN", data_type: TYPE_FP32, dims: [ -1 ] }]
output [{ name: "OUT", data_type: TYPE_FP32, dims: [ -1 ] }]
instance_group [{ count: 2, kind: KIND_CPU }]
`;

let s: Awaited<ReturnType<typeof startServer>>;
let metrics: MetricsServer;

beforeAll(async () => {
  const repo = tempDir('custom-metrics-');
  mkdirSync(join(repo, 'counted', '1'), { recursive: true });
  writeFileSync(join(repo, 'counted', 'config.pbtxt'), CONFIG);
  writeFileSync(join(repo, 'counted', '1', 'model.py'), MODEL);
  s = await startServer({ repo, port: 0, host: '127.0.0.1', webDist: '/nonexistent', token: 'secret-token' });
  metrics = await startMetricsServer(s.studio, '127.0.0.1', 0, () => undefined);
});
afterAll(async () => {
  await metrics?.close();
  await s?.close();
});

const auth = { authorization: 'Bearer secret-token' };
const scrape = async (base: string) => {
  const r = await fetch(`${base}/metrics`, { headers: auth });
  expect(r.status).toBe(200);
  return r.text();
};

describe("Python models' custom metrics", () => {
  it('are published on /metrics as the model reports them, a series shared by both instances', async () => {
    const before = await scrape(s.url);
    // Each instance made its series in initialize: Triton shows a metric from its creation on.
    expect(before).toContain('requests_total{model="counted"} 0');
    expect(before).toContain('last_size{instance="counted_0_0"} 0');
    expect(before).toContain('last_size{instance="counted_0_1"} 0');
    const infer = (data: number[]) =>
      call(
        `${s.url}/v2/models/counted/infer`,
        'POST',
        { inputs: [{ name: 'IN', datatype: 'FP32', shape: [data.length], data }] },
        auth,
      );
    // Two at once, so that both instances serve.
    const rs = await Promise.all([infer([0.5, 5]), infer([50]), infer([2, 3, 4])]);
    for (const r of rs) expect(r.status).toBe(200);
    const text = await scrape(s.url);
    expect(text).toContain('# HELP requests_total Requests seen\n# TYPE requests_total counter\n');
    expect(text).toContain('requests_total{model="counted"} 3\n');
    expect(text).toMatch(/last_size\{instance="counted_0_[01]"\} [123]\n/);
    expect(text).toContain(
      [
        '# TYPE input_values histogram',
        'input_values_bucket{model="counted",le="1"} 1',
        'input_values_bucket{model="counted",le="10"} 5',
        'input_values_bucket{model="counted",le="+Inf"} 6',
        'input_values_sum{model="counted"} 64.5',
        'input_values_count{model="counted"} 6',
      ].join('\n'),
    );
    // The metrics port serves the same text, and nothing else.
    const fromPort = await scrape(metrics.url);
    expect(fromPort).toContain('requests_total{model="counted"} 3\n');
    expect(fromPort).toContain('nv_inference_request_success{model="counted",version="1"} 3');
    // A model without max_batch_size does one inference a request, whatever its first dim (Triton's batch size 1).
    expect(fromPort).toContain('nv_inference_count{model="counted",version="1"} 3\n');
    expect(fromPort).toContain('studio_batch_executions_total{model="counted",version="1",batch_size="1"} 3\n');
    expect(fromPort).toMatch(/^nv_cpu_utilization (0|1|0\.\d+)$/m);
    expect(fromPort).toMatch(/^nv_cpu_memory_used_bytes [1-9]\d*$/m);
    // A request the model's code fails is a BACKEND failure, as Triton labels it.
    expect((await infer([-1])).status).toBe(500);
    expect(await scrape(metrics.url)).toMatch(
      /^nv_inference_request_failure\{model="counted",reason="BACKEND",version="1"\} 1$/m,
    );
    expect((await fetch(`${metrics.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${metrics.url}/v2/health/ready`, { headers: auth })).status).toBe(404);
  });

  it("leave /metrics with the model's instances when it is unloaded", async () => {
    expect((await call(`${s.url}/v2/repository/models/counted/unload`, 'POST', {}, auth)).status).toBe(200);
    // The unload is answered at once; its instances close (finalize, exit) after.
    const gone = /requests_total|last_size|input_values/;
    const until = Date.now() + 20_000;
    while (gone.test(await scrape(metrics.url)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(await scrape(metrics.url)).not.toMatch(gone);
  });

  it('says so when the metrics port is taken', async () => {
    await expect(startMetricsServer(s.studio, '127.0.0.1', metrics.port, () => undefined)).rejects.toThrow(
      `metrics cannot listen on 127.0.0.1:${metrics.port}: the port is in use (--metrics-port 0 picks a free one, off turns the metrics port off)`,
    );
  });
});
