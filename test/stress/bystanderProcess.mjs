// The hostile probe's bystander, in a process of its own so that what it measures is the server: asks
// /v2/health/ready of the URL in argv[2] one request after another (each on a connection of its own), 5 ms apart,
// until its parent sends 'stop'; sends 'ready' after its first answer, and at the end { worstMs, samples, error,
// latenciesMs }. The first answer is not counted: it comes before the hostile request starts (the parent waits for
// 'ready'), and it is this fresh process's first request (its own start-up), not a stall of the server's.
import { get } from 'node:http';

const url = process.argv[2];
let stopping = false;
process.on('message', (m) => {
  if (m === 'stop') stopping = true;
});

/** The status of one `/v2/health/ready` on a connection of its own (a kept-alive one can race the server's idle close). */
function askReady() {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/v2/health/ready`, { agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
  });
}

let worstMs = 0;
const latenciesMs = [];
let samples = 0;
let error;
try {
  do {
    const t = performance.now();
    const status = await askReady();
    if (status !== 200) throw new Error(`/v2/health/ready answered ${status}`);
    const ms = performance.now() - t;
    if (samples++ === 0) process.send('ready');
    else {
      worstMs = Math.max(worstMs, ms);
      latenciesMs.push(Math.round(ms * 10) / 10);
    }
    await new Promise((r) => setTimeout(r, 5));
  } while (!stopping);
} catch (err) {
  error = err.message;
}
process.send({ worstMs, samples, error, latenciesMs }, () => process.exit(0));
