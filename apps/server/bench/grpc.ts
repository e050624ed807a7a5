// The gRPC endpoint's costs: how long a streamed response takes from the engine producing it to a gRPC client
// holding it, and a small model through ModelInfer against the same engine run called directly.
import { Worker } from 'node:worker_threads';
import type { Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { connectTestClient } from '../src/testing/grpcTestClient.ts';
import { startGrpcServer } from '../src/grpc/server.ts';
import { Engine, type RunRequest } from '../src/engine/index.ts';
import { writeEngineRepository } from '../src/testing/engineFixtureRepository.ts';
import { ocrGraph } from '../src/testing/engineGraphs.ts';
import { tensorToBytes } from '../src/http/kserveTensors.ts';
import { Studio, type StudioEngine } from '../src/http/Studio.ts';

const BOOT = new URL('../src/engine/backends/onnx/workerBoot.mjs', import.meta.url);
const CLIENT = new URL('./grpcClientWorker.ts', import.meta.url).href;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/**
 * `grpc_stream_first_response_ms` (ocr's decoupled response: the engine's onResponse → the client's `data`
 * event, same process and clock) and `grpc_unary_overhead_ratio` (head through ModelInfer from a client on its
 * own thread / head through `engine.run`), on a loopback gRPC server over a fresh repository in `dir`.
 */
export async function grpcBench(dir: string, image: Tensor, quick: boolean): Promise<Record<string, number>> {
  const repository = writeEngineRepository(dir, ['det', 'rec', 'cls', 'head'], {
    head: { dynamic_batching: undefined },
  });
  repository.graphs.ocr = { ...ocrGraph('gate'), name: 'ocr' };
  const engine = await Engine.create({ repository });
  // The real engine; only the moment it hands over each response is noted.
  const produced: number[] = [];
  const timed: StudioEngine = {
    run: (req: RunRequest) =>
      engine.run(
        req.onResponse
          ? {
              ...req,
              onResponse: (o: Record<string, Tensor>, f: boolean) => {
                produced.push(performance.now());
                req.onResponse!(o, f);
              },
            }
          : req,
      ),
    health: () => engine.health(),
    sequences: () => engine.sequences(),
    metrics: () => engine.metrics(),
    close: () => engine.close(),
    endSequence: (id) => engine.endSequence(id),
    onSequenceEnded: (listener) => engine.onSequenceEnded(listener),
  };
  const studio = new Studio({ repository, engine: timed });
  const server = await startGrpcServer(studio, '127.0.0.1', 0);
  const client = connectTestClient(server.address);
  try {
    const ocrRequest = {
      model_name: 'ocr',
      inputs: [{ name: 'image', datatype: 'UINT8', shape: [...image.shape] }],
      raw_input_contents: [Buffer.from(tensorToBytes(image))],
    };
    const firstResponse = () =>
      new Promise<number>((resolve, reject) => {
        produced.length = 0;
        const stream = client.stream();
        stream.once('data', () => {
          const got = performance.now();
          stream.end();
          resolve(got - produced[0]!);
        });
        stream.on('error', reject);
        stream.on('end', () => reject(new Error('ocr streamed no response: the bench image must hold text')));
        // A blank image gets no response at all (the gate stops it): give up rather than wait forever.
        setTimeout(() => {
          stream.cancel();
          reject(new Error('ocr streamed no response within 30 s: the bench image must hold text'));
        }, 30_000).unref();
        stream.write(ocrRequest);
      });
    const delays: number[] = [];
    for (let i = 0; i < (quick ? 5 : 15); i++) delays.push(await firstResponse());

    const head = repository.catalogue.models.head!;
    const graph = singleModelGraph(head);
    const feat = new Float32Array(256).fill(0.5);
    const headInfer = {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [Buffer.from(feat.buffer)],
    };
    // Rounds of direct runs (timed here) and gRPC calls (timed by the client's own thread), alternating so drift hits both.
    const worker = new Worker(BOOT, { workerData: { entry: CLIENT, address: server.address } });
    const grpcRound = (n: number) =>
      new Promise<number[]>((resolve) => {
        worker.once('message', resolve);
        worker.postMessage({ n, request: headInfer });
      });
    const direct: number[] = [];
    const viaGrpc: number[] = [];
    try {
      await grpcRound(20);
      for (let round = 0; round < (quick ? 5 : 15); round++) {
        for (let i = 0; i < 10; i++) {
          const t = performance.now();
          await engine.run({ graph, inputs: { feat: { datatype: 'FP32', shape: [1, 256], data: feat.slice() } } });
          direct.push(performance.now() - t);
        }
        viaGrpc.push(...(await grpcRound(10)));
      }
    } finally {
      worker.postMessage('close');
      await worker.terminate();
    }
    const [d, g] = [median(direct), median(viaGrpc)];
    return {
      grpc_stream_first_response_ms: median(delays),
      grpc_unary_direct_ms: d,
      grpc_unary_ms: g,
      grpc_unary_overhead_ratio: g / d,
    };
  } finally {
    client.close();
    await server.close();
    await engine.close();
  }
}
