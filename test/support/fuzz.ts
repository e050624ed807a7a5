// Shared settings and assertions of the fuzz tests (test/fuzz, unit project) and their long versions (test/stress).
import { expect } from 'vitest';

/**
 * Cases per fuzz property. CI runs the defaults (each file well under 10 s on 2 cores); `FUZZ_SCALE=20 pnpm test:stress`
 * or `FUZZ_SCALE=20 npx vitest run test/fuzz` runs 20× as many.
 */
const FUZZ_SCALE = Math.max(1, Number(process.env.FUZZ_SCALE ?? 1) || 1);
const runs = (n: number) => Math.round(n * FUZZ_SCALE);
export const FUZZ_RUNS = {
  expr: runs(3000),
  graph: runs(1500),
  pbtxt: runs(2500),
  message: runs(3000),
  wsFrames: runs(1500),
  kserve: runs(1000),
} as const;

/** An error a user can read: an Error (not a TypeError/RangeError/… thrown by accident) with a message. */
export function expectCleanError(e: unknown): void {
  expect(e).toBeInstanceOf(Error);
  const err = e as Error;
  expect(
    ['TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'InternalError'],
    `${err.name}: ${err.message}`,
  ).not.toContain(err.name);
  expect(err.message).toMatch(/\S/);
}

// CI replays one fixed seed per run so a red build always reproduces; `FUZZ_SEED=random` (or any number) explores.
const seedEnv = process.env.FUZZ_SEED;
if (seedEnv !== 'random') {
  const fc = (await import('fast-check')).default;
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seedEnv ?? 20261121) || 20261121 });
}
