// A role for contenderProcess.test.ts: trials that note their turn in a shared file, make garbage, fail or exit,
// so the test can see which process ran what, in which order, and what each trial cost there.
import { appendFileSync } from 'node:fs';
import type { Role } from './contenderProcess.ts';
import { benchScratchDir } from './scratchDir.ts';

/** `turns`: the file every process appends `<tag> <task><block>` to, at the start and end of each trial. */
export interface ProbeOptions {
  tag: string;
  turns: string;
  failSetup?: boolean;
}

/** The garbage trial's last objects, held so the work cannot be optimised away. */
const held: unknown[] = [];

/** The probe's tasks: `quiet`, `garbage` (~60 MB of short-lived objects and 8 MiB of fresh pages), `selfTimed`, `fail`, `exit`. */
export const probeRole: Role<ProbeOptions> = async ({ tag, turns, failSetup }, log) => {
  if (failSetup) throw new Error('probe set-up failed');
  const scratch = benchScratchDir('probe-');
  const turn = (what: string) => appendFileSync(turns, `${tag} ${what}\n`);
  log(`probe ${tag} ready`);
  return {
    tasks: {
      pid: async () => process.pid,
      scratch: async () => scratch,
      quiet: async (b) => {
        turn(`start quiet${b}`);
        turn(`end quiet${b}`);
      },
      garbage: async (b) => {
        turn(`start garbage${b}`);
        for (let i = 0; i < 1_000_000; i++) held[0] = { i, s: `x${i}` };
        held[1] = new Float64Array(1 << 20).fill(1);
        turn(`end garbage${b}`);
      },
      selfTimed: async (b) => ({ selfTimedMs: 5 + b }),
      fail: async () => {
        throw new Error('probe trial failed');
      },
      exit: async () => process.exit(3),
    },
    close: async () => {
      held.length = 0;
    },
  };
};
