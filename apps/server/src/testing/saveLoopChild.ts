// A child process for the crash test: saves graph `crash` over and over, alternating the name of
// its output (so studio.json and config.pbtxt differ from save to save), until it is killed. It says
// `ready` once the first save has committed: the kills under test land on saves over a saved graph.
import type { GraphDoc } from '@ensemble-studio/core';
import { loadRepository } from '../repo/loadRepository.ts';
import { saveGraph } from '../repo/saveGraph.ts';

const [dir, graphJson] = process.argv.slice(2);
const repo = await loadRepository(dir!);
const base = JSON.parse(graphJson!) as GraphDoc;
for (let i = 0; ; i++) {
  const nodes = base.nodes.map((n) =>
    n.kind === 'output' ? { ...n, params: { ...n.params, name: i % 2 === 0 ? 'logits' : 'scores' } } : n,
  );
  await saveGraph(repo, { ...base, name: 'crash', nodes, description: `save ${i}` });
  if (i === 0) process.stdout.write('ready\n');
}
