// A contender's child process (started by contenderProcess.ts through contenderBoot.mjs, from its bundle): sets its role up, then
// runs the tasks the bench asks for one at a time, timing each trial and counting its usage here, in its own process.
import { bundleScript } from '../src/scriptBundle.mjs';
import type { FromChild, Role, ToChild } from './contenderProcess.ts';
import { DescendantPids, startUsage } from './usage.ts';

const [moduleUrl, exportName, options] = process.argv.slice(2) as [string, string, string];
const send = (m: FromChild) => process.send!(m);
// The bench's process has gone (it failed or was killed): nothing will ask for a trial again.
process.on('disconnect', () => process.exit(1));

try {
  // The role's module runs from its bundle too (a TypeScript module: this process has no loader for it).
  const role = (await import((await bundleScript(new URL(moduleUrl))).href))[exportName] as Role<unknown>;
  const hosted = await role(JSON.parse(options), (line) => send({ type: 'log', line }));
  const descendants = new DescendantPids();
  process.on('message', async (m: ToChild) => {
    if (m.type === 'close') {
      await hosted.close();
      process.exit(0);
    }
    const task = hosted.tasks[m.task];
    if (!task) return send({ type: 'failed', id: m.id, error: `no task '${m.task}' in ${exportName}` });
    try {
      if (!m.measure) return send({ type: 'done', id: m.id, value: await task(m.block) });
      const pids = hosted.countChildren ? descendants.pids() : [];
      const stop = startUsage(pids);
      const t = performance.now();
      const out = (await task(m.block)) as { selfTimedMs?: number } | undefined;
      const wall = performance.now() - t;
      const usage = await stop();
      // A role's python processes may start on its first request (the warm-up trial) or restart after a crash.
      if (hosted.countChildren) descendants.afterTrial(m.block < 0);
      send({ type: 'done', id: m.id, ms: typeof out?.selfTimedMs === 'number' ? out.selfTimedMs : wall, usage });
    } catch (err) {
      send({ type: 'failed', id: m.id, error: (err as Error).stack ?? String(err) });
    }
  });
  send({ type: 'ready' });
} catch (err) {
  process.send!({ type: 'failed', error: (err as Error).stack ?? String(err) } satisfies FromChild, () =>
    process.exit(1),
  );
}
