import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Every project removes the scratch directories its test files made; the run checks nothing else was left behind.
const setupFiles = ['test/support/removeTempDirsSetup.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/tempRunDir.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'packages/*/src/**/*.test.ts',
            'apps/*/src/**/*.test.ts',
            'apps/*/src/**/*.test.tsx',
            'apps/*/bench/**/*.test.ts',
            'test/integration/**/*.test.ts',
            'test/fuzz/**/*.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two files at once at least: vitest's default (one less than the CPUs) is one file at a time on CI's 2 cores.
          // The clean-clone CI's unit phase took 632 s with one and 497 s with two (test/README.md, "Where CI's time goes").
          maxWorkers: Math.max(2, availableParallelism() - 1),
          setupFiles,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.spec.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // expect.poll waits for what the page shows after a server's answer and a render: 1 s (vitest's default)
          // is a speed limit there, not a hang guard. The same 30 s as Playwright's own waits (waitFor, click).
          expect: { poll: { timeout: 30_000 } },
          fileParallelism: false,
          setupFiles,
        },
      },
      {
        test: {
          name: 'stress',
          include: ['test/stress/**/*.stress.ts'],
          testTimeout: 900_000,
          hookTimeout: 300_000,
          fileParallelism: false,
          setupFiles,
        },
      },
    ],
  },
});
