// @ts-check
// How soon V8 optimises the server's code. Plain JavaScript, so that the CLI's launcher and the bench's processes can
// set it before they load anything else.
import v8 from 'node:v8';

/**
 * Bytecode a function's calls must run before V8 considers optimising it: a quarter of Node 20's 67,584. Code called
 * once a request (the scheduler, the run's bookkeeping, grpc-js, the Python backend's frames) otherwise stays in
 * V8's baseline tier for thousands of requests. An identity model.py's round trip, 3 ms between requests, medians of
 * windows of 250: after 2,000 requests 0.34–0.55 ms a trip as is, 0.27–0.33 with this budget; the A/B in the server
 * README, "Warmed until steady, optimised sooner".
 */
const INTERRUPT_BUDGET = 16 * 1024;

/** The flag as a command line gives it (for a child process started with `process.execPath`). */
export const TIER_UP_FLAG = `--interrupt-budget=${INTERRUPT_BUDGET}`;

/**
 * Sets `TIER_UP_FLAG` for this process and the worker threads it starts, unless its command line sets a budget
 * of its own (`node --interrupt-budget=N`).
 */
export function tierUpSooner() {
  if (process.execArgv.some((a) => a.startsWith('--interrupt-budget'))) return;
  v8.setFlagsFromString(TIER_UP_FLAG);
}
