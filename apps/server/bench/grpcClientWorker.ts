// A gRPC client on its own thread, as a real client is its own process: the server's event loop then pays
// only for the server's side of each call. Each message asks for `n` sequential calls — ModelInfer to the
// studio, or the bare echo service's unary call — and gets back the time of each (ms, measured here).
import { parentPort, workerData } from 'node:worker_threads';
import { connectTestClient } from '../src/testing/grpcTestClient.ts';
import { bareEchoClient } from './bareGrpc.ts';

const { address, bareAddress } = workerData as { address: string; bareAddress: string };
const client = connectTestClient(address);
const bare = bareEchoClient(bareAddress);
parentPort!.on('message', async (msg: { n: number; request: unknown; bare: boolean } | 'close') => {
  if (msg === 'close') {
    client.close();
    bare.close();
    parentPort!.close();
    return;
  }
  const times: number[] = [];
  const payload = msg.bare ? Buffer.from(msg.request as Uint8Array) : undefined;
  try {
    for (let i = 0; i < msg.n; i++) {
      const t = performance.now();
      if (payload) await bare.echo(payload);
      else await client.call('ModelInfer', msg.request);
      times.push(performance.now() - t);
    }
    parentPort!.postMessage(times);
  } catch (err) {
    // Thrown here it would take the whole bench down; the bench reports it and goes on.
    parentPort!.postMessage({ error: (err as Error).message });
  }
});
