// The gRPC endpoint's costs: how long a streamed response takes from the engine producing it to a gRPC client
// holding it, and a small model through ModelInfer against the same engine run called directly; each beside a
// bare grpc-js server and client doing the same round trip in the same blocks (bareGrpc.ts).
import type { Tensor } from '@ensemble-studio/core';
import { singleModelGraph } from '@ensemble-studio/core';
import { connectTestClient } from '../src/testing/grpcTestClient.ts';
import { startGrpcServer } from '../src/grpc/server.ts';
import { Engine, type RunRequest } from '../src/engine/index.ts';
import { writeEngineRepository } from '../src/testing/engineFixtureRepository.ts';
import { ocrGraph } from '../src/testing/engineGraphs.ts';
import { tensorToBytes } from '../src/http/kserveTensors.ts';
import { Studio, type StudioEngine } from '../src/http/Studio.ts';
import { startWorker } from '../src/workerScript.ts';
import { bareEchoClient, startBareEchoServer } from './bareGrpc.ts';
import { type BenchContext, raiseBenchEventLoop, textImage } from './context.ts';
import { measureBlocks, type Contender, type SelfTimed } from './measure.ts';
import { median, perBlock } from './stats.ts';

const CLIENT = new URL('./grpcClientWorker.ts', import.meta.url);
const CALLS_PER_TRIAL = 10;

/**
 * `grpc_stream_first_response_ms` (ocr's decoupled response: the engine's onResponse → the client's `data`
 * event, same process and clock) beside the bare stream's, and `grpc_unary_overhead_ratio` (head through
 * ModelInfer from a client on its own thread / head through `engine.run`) beside `grpc_unary_vs_bare_ratio`
 * (ModelInfer / (engine.run + the bare unary echo)): 1.0 there means the studio's gRPC layer adds nothing to
 * grpc-js's round trip and the engine. On a loopback server over a fresh repository in `dir`.
 */
export async function grpcBench(dir: string, ctx: BenchContext): Promise<void> {
  const { report, blocks, quick } = ctx;
  const image = textImage();
  const repository = writeEngineRepository(dir, ['det', 'rec', 'cls', 'head'], {
    head: { dynamic_batching: undefined },
  });
  repository.graphs.ocr = { ...ocrGraph('gate'), name: 'ocr' };
  const engine = await Engine.create({ repository });
  await raiseBenchEventLoop(); // as `serve` does once it is up; the bare echo shares this process
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
    modelUnavailable: (name) => engine.modelUnavailable(name),
    sequences: () => engine.sequences(),
    metrics: () => engine.metrics(),
    close: () => engine.close(),
    closeWhenIdle: () => engine.closeWhenIdle(),
    reload: (r, models) => engine.reload(r, models),
    unloadModel: (model) => engine.unloadModel(model),
    modelLoading: (model) => engine.modelLoading(model),
    endSequence: (id) => engine.endSequence(id),
    onSequenceEnded: (listener) => engine.onSequenceEnded(listener),
  };
  const studio = new Studio({ repository, engine: timed });
  const server = await startGrpcServer(studio, '127.0.0.1', 0);
  const client = connectTestClient(server.address);
  const written: number[] = [];
  const bareServer = await startBareEchoServer(() => written.push(performance.now()));
  const bareClient = bareEchoClient(bareServer.address);
  try {
    const ocrRequest = {
      model_name: 'ocr',
      inputs: [{ name: 'image', datatype: 'UINT8', shape: [...image.shape] }],
      raw_input_contents: [Buffer.from(tensorToBytes(image))],
    };
    const firstResponse = () =>
      new Promise<SelfTimed>((resolve, reject) => {
        produced.length = 0;
        const stream = client.stream();
        stream.once('data', () => {
          const got = performance.now();
          stream.end();
          resolve({ selfTimedMs: got - produced[0]! });
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
    const bareFirstResponse = () =>
      new Promise<SelfTimed>((resolve, reject) => {
        written.length = 0;
        const stream = bareClient.stream();
        stream.once('data', () => {
          const got = performance.now();
          stream.end();
          resolve({ selfTimedMs: got - written[0]! });
        });
        stream.on('error', reject);
        stream.write(Buffer.alloc(200));
      });
    const streams: Contender[] = [
      { name: 'grpc_stream_first_response', run: firstResponse },
      { name: 'grpc_bare_stream_first_response', run: bareFirstResponse },
    ];
    report.addMeasured(streams, await measureBlocks(streams, { blocks, trials: quick ? 3 : 5 }));
    report.setBeside('grpc_stream_first_response_ms', ['grpc_bare_stream_first_response_ms']);

    const graph = singleModelGraph(repository.catalogue.models.head!);
    const feat = new Float32Array(256).fill(0.5);
    const headInfer = {
      model_name: 'head',
      inputs: [{ name: 'feat', datatype: 'FP32', shape: [1, 256] }],
      raw_input_contents: [Buffer.from(feat.buffer)],
    };
    // About the size of headInfer encoded: 1 KiB of floats and the names around them.
    const bareRequest = new Uint8Array(1100);
    const worker = await startWorker(CLIENT, {
      workerData: { address: server.address, bareAddress: bareServer.address },
    });
    const clientRound = (bare: boolean) =>
      new Promise<SelfTimed>((resolve, reject) => {
        worker.once('message', (times: number[] | { error: string }) =>
          Array.isArray(times)
            ? resolve({ selfTimedMs: median(times) })
            : reject(new Error(`gRPC client: ${times.error}`)),
        );
        worker.postMessage({ n: CALLS_PER_TRIAL, request: bare ? bareRequest : headInfer, bare });
      });
    const directRound = async (): Promise<SelfTimed> => {
      const times: number[] = [];
      for (let i = 0; i < CALLS_PER_TRIAL; i++) {
        const t = performance.now();
        await engine.run({ graph, inputs: { feat: { datatype: 'FP32', shape: [1, 256], data: feat.slice() } } });
        times.push(performance.now() - t);
      }
      return { selfTimedMs: median(times) };
    };
    try {
      // Trials are rounds of calls; each trial's time is the median call of its round.
      const unary: Contender[] = [
        { name: 'grpc_unary_direct', run: directRound, requests: CALLS_PER_TRIAL },
        { name: 'grpc_unary', run: () => clientRound(false), requests: CALLS_PER_TRIAL },
        { name: 'grpc_bare_echo', run: () => clientRound(true), requests: CALLS_PER_TRIAL },
      ];
      const u = report.addMeasured(unary, await measureBlocks(unary, { blocks, trials: quick ? 4 : 10 }));
      report.add(
        'grpc_unary_vs_bare_ratio',
        u.grpc_unary!.map((g, b) => g / (u.grpc_unary_direct![b]! + u.grpc_bare_echo![b]!)),
      );
      report.add(
        'grpc_unary_overhead_ratio',
        perBlock(u.grpc_unary!, u.grpc_unary_direct!, (g, d) => g / d),
        ['grpc_unary_vs_bare_ratio', 'grpc_bare_echo_ms'],
      );
    } finally {
      worker.postMessage('close');
      await worker.terminate();
    }
  } finally {
    bareClient.close();
    await bareServer.close();
    client.close();
    await server.close();
    await engine.close();
  }
}
