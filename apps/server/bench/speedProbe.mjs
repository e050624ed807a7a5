// A host-speed probe (hostSpeed.ts): one per CPU, pinned there with `taskset`. For each line on stdin it runs the
// same fixed piece of arithmetic ROUNDS times and writes the quickest round, in ms: that grows when the host runs
// this CPU slower for a while, and not for the first round's cold caches after an idle spell or for a round that
// another of this machine's threads interrupted.
const data = new Float64Array(4096).map((_, i) => (i % 7) / 7);
const PASSES = 24;
const ROUNDS = 6;

/** The fixed work: PASSES multiply-adds over `data`, with a result the JIT cannot drop. */
function work() {
  let s = 0;
  for (let p = 0; p < PASSES; p++) for (let i = 0; i < data.length; i++) s += data[i] * 1.0000001;
  return s;
}

let sink = 0;
for (let i = 0; i < 300; i++) sink += work(); // optimised before the first timed run
globalThis.probeSink = sink; // a result kept, so the loop's arithmetic is never dropped
process.stdout.write('ready\n');
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf('\n')) >= 0) {
    pending = pending.slice(nl + 1);
    let quickest = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      const t = performance.now();
      globalThis.probeSink += work();
      quickest = Math.min(quickest, performance.now() - t);
    }
    process.stdout.write(`${quickest.toFixed(4)}\n`);
  }
});
process.stdin.on('end', () => process.exit(0));
