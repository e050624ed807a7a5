// A gRPC client on its own thread, as a real client is its own process: the server's event loop then pays
// only for the server's side of each call. Each message asks for `n` sequential ModelInfer calls and gets
// back the time of each (ms, measured here).
import { parentPort, workerData } from 'node:worker_threads';
import { connectTestClient } from '../src/testing/grpcTestClient.ts';

const client = connectTestClient((workerData as { address: string }).address);
parentPort!.on('message', async (msg: { n: number; request: unknown } | 'close') => {
  if (msg === 'close') {
    client.close();
    parentPort!.close();
    return;
  }
  const times: number[] = [];
  for (let i = 0; i < msg.n; i++) {
    const t = performance.now();
    await client.call('ModelInfer', msg.request);
    times.push(performance.now() - t);
  }
  parentPort!.postMessage(times);
});
