// The turn survey (HOSTILE.md, sixteenth round), run on demand: `STUDIO_TURN_SURVEY=1 pnpm exec vitest run --project
// stress test/stress/turnSurvey.stress.ts` (STUDIO_TURN_SURVEY=<text> runs the cases whose name holds it). For each
// hostile category a server is started fresh, with the turn monitor preloaded (test/support/turnMonitor.mjs), and
// the category's request is sent while a bystander asks /v2/health/ready; it prints, per category, the main thread's
// longest turn by CPU and by wall time, and the bystander's p99 and worst. The CPU column is what the server did; the
// wall column is that plus what the machine's load took from it. Not run in CI (a server per case: minutes).
import { loadavg } from 'node:os';
import { describe, it } from 'vitest';
import { copyExamples } from '../support/server.ts';
import { longest, monitoredStudio, quantile, watched } from './turnLog.ts';
import { SURVEY_CASES } from './turnSurveyCases.ts';

const filter = process.env.STUDIO_TURN_SURVEY;
const cases = SURVEY_CASES.filter((c) => filter === '1' || (filter !== undefined && c.name.includes(filter)));
// Turns that end this long after the request's answer still count to it (its clean-up, a late reply).
const AFTER_MS = 300;

describe.runIf(filter !== undefined)('event-loop turns of a fresh server per hostile category', () => {
  const rows: string[] = [];
  for (const c of cases) {
    it(
      c.name,
      async () => {
        const repo = copyExamples({ linkModels: true });
        const m = await monitoredStudio(repo, 5, c.serveArgs?.(repo));
        try {
          // Start-up's own turns are over before the bystander starts (the server is listening, nothing asked yet).
          await new Promise((r) => setTimeout(r, 1000));
          const prepared = await c.prepare?.(m, repo);
          const w = await watched(m.studio.url, () => c.run(m, prepared));
          await new Promise((r) => setTimeout(r, AFTER_MS));
          const { cpu, wall } = longest(m.turns(w.fromMs, w.toMs + AFTER_MS));
          const row = [
            c.name.padEnd(50),
            `cpu ${String(cpu?.cpuMs ?? 0).padStart(6)} (wall ${String(cpu?.wallMs ?? 0).padStart(6)})`,
            `wall ${String(wall?.wallMs ?? 0).padStart(6)} (cpu ${String(wall?.cpuMs ?? 0).padStart(6)})`,
            `bystander p99 ${String(quantile(w.latenciesMs, 0.99)).padStart(6)} max ${String(Math.max(0, ...w.latenciesMs)).padStart(6)} (${w.latenciesMs.length})`,
            `${w.toMs - w.fromMs} ms`,
            // The answer's status, where the case's result is one HTTP answer.
            `status ${(w.result as { status?: number } | undefined)?.status ?? '-'}`,
          ].join(' | ');
          rows.push(row);
          console.log(row);
        } finally {
          m.studio.child.kill('SIGTERM');
          await m.studio.exited;
        }
      },
      300_000,
    );
  }
  it('prints the table', () => {
    console.log(
      `turn survey (ms; longest turn by CPU, by wall; load ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}):\n${rows.join('\n')}`,
    );
  });
});
