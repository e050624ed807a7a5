// The bench's contenders in child processes of their own: each trial runs in its contender's process, one at a
// time in the interleaved order, with its usage counted there; failures come back as errors; closing ends the child.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ContenderProcess } from './contenderProcess.ts';
import { measureBlocks } from './measure.ts';
import type { ProbeOptions } from './probeRole.ts';
import { interleaveOrder } from './stats.ts';

const PROBE = { module: new URL('./probeRole.ts', import.meta.url), name: 'probeRole' };

let dir: string;
const lines: string[] = [];
const started: ContenderProcess[] = [];
const start = async (tag: string, extra: Partial<ProbeOptions> = {}) => {
  dir ??= mkdtempSync(join(tmpdir(), 'contender-test-'));
  const options: ProbeOptions = { tag, turns: join(dir, 'turns'), ...extra };
  const p = await ContenderProcess.start(tag, PROBE, options, (l) => lines.push(l));
  started.push(p);
  return p;
};
const alive = (pid: number) => existsSync(`/proc/${pid}`);

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.close()));
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined!;
  lines.length = 0;
});

describe('ContenderProcess', () => {
  it('runs each contender in a process of its own, one trial at a time, in the interleaved order', async () => {
    const [a, b] = await Promise.all([start('a'), start('b')]);
    expect(new Set([a.pid, b.pid, process.pid]).size).toBe(3);
    expect(await a.call('pid')).toBe(a.pid);
    expect(await b.call('pid')).toBe(b.pid);
    expect(lines.sort()).toEqual(['probe a ready', 'probe b ready']);
    await measureBlocks([a.contender('garbage'), b.contender('quiet')], { blocks: 3, trials: 2, warm: { maxMs: 0 } });
    const turn = (k: number, block: number) => {
      const [tag, task] = k === 0 ? ['a', 'garbage'] : ['b', 'quiet'];
      return [`${tag} start ${task}${block}`, `${tag} end ${task}${block}`];
    };
    const expected = [...turn(0, -1), ...turn(1, -1)];
    for (const [block, rounds] of interleaveOrder(2, 3, 2).entries())
      for (const k of rounds.flat()) expected.push(...turn(k, block));
    expect(readFileSync(join(dir, 'turns'), 'utf8').trim().split('\n')).toEqual(expected);
  });

  it("counts a trial's page faults, CPU and garbage collections in its own process, not its rival's", async () => {
    const [a, b] = await Promise.all([start('a'), start('b')]);
    const m = await measureBlocks([a.contender('garbage', 4), b.contender('quiet')], {
      blocks: 3,
      trials: 2,
      warm: { maxMs: 0 },
    });
    const [noisy, quiet] = m.usage;
    // 8 MiB of fresh pages per trial, 4 requests each; ~60 MB of garbage per trial needs collections.
    expect(noisy!.minorFaultsPerRequest).toBeGreaterThan(100);
    expect(noisy!.cpuMsPerRequest).toBeGreaterThan(0);
    expect(noisy!.gcPerTrial).toBeGreaterThan(0);
    expect(quiet!.gcPerTrial).toBe(0);
    expect(quiet!.minorFaultsPerRequest).toBeLessThan(100);
  });

  it('takes the time a trial measured itself, per block', async () => {
    const a = await start('a');
    const m = await measureBlocks([a.contender('selfTimed')], { blocks: 3, trials: 2 });
    expect(m.ms[0]).toEqual([5, 6, 7]);
  });

  it('passes a failed trial, a missing task and a set-up failure back as errors, and a child that exits', async () => {
    const a = await start('a');
    await expect(a.call('fail')).rejects.toThrow(/a: Error: probe trial failed/);
    await expect(a.call('nothing')).rejects.toThrow(/no task 'nothing' in probeRole/);
    expect(await a.call('pid')).toBe(a.pid); // still serving after a failure
    await expect(a.contender('exit').run(0)).rejects.toThrow(/contender process a exited \(code 3\)/);
    await expect(a.call('pid')).rejects.toThrow(/exited/);
    await expect(start('c', { failSetup: true })).rejects.toThrow(/c: Error: probe set-up failed/);
  });

  it('closing ends the child, which removes its scratch directory', async () => {
    const a = await start('a');
    const scratch = await a.call<string>('scratch');
    expect(existsSync(scratch)).toBe(true);
    await a.close();
    expect(alive(a.pid)).toBe(false);
    expect(existsSync(scratch)).toBe(false);
  });
});
