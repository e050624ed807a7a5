import { writeFile } from 'node:fs/promises';
import { compileGraph } from '@ensemble-studio/core';
import { loadRepository } from '../../repo/loadRepository.ts';
import { writeRepoFiles, zipRepoFiles } from '../../repo/repoFiles.ts';
import { isInsideReal } from '../../repo/safeJoin.ts';
import { directoryValue, parseCommandArgs, str, userPath } from '../args.ts';
import { CliError, UsageError } from '../errors.ts';
import type { CliIO } from '../io.ts';
import { resolveTarget } from '../target.ts';
import { formatDiagnostic } from './validate.ts';

/**
 * `compile NAME|GRAPH.json --repo DIR --out DIR [--zip FILE]`: writes the deployable repository
 * (and/or a zip of it); exit 1 with the diagnostics when the graph does not compile.
 * @example await compileCommand(['ocr', '--out', '/tmp/ocr'], io)
 */
export async function compileCommand(argv: string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    argv,
    { repo: { type: 'string' }, out: { type: 'string' }, zip: { type: 'string' } },
    1,
  );
  const target = positionals[0];
  if (target === undefined) throw new UsageError('compile needs a graph: NAME or GRAPH.json');
  const out = str(values, 'out');
  const zip = str(values, 'zip');
  if (!out && !zip) throw new UsageError('compile needs --out DIR (and/or --zip FILE)');
  const repo = await loadRepository(directoryValue(str(values, 'repo', io.defaultRepo)!, 'repo')).catch(
    (err: NodeJS.ErrnoException) => {
      throw new CliError(`cannot open repository: ${err.code ?? err.message}`);
    },
  );
  // Compiled files written into the repository would replace its own models' files (or add models to it); a zip
  // written there could replace one of them (`--zip REPO/det/1/model.onnx`).
  if (out && isInsideReal(repo.dir, userPath(out)))
    throw new UsageError('--out must not be the source repository or inside it');
  if (zip && isInsideReal(repo.dir, userPath(zip)))
    throw new UsageError('--zip must not be inside the source repository');
  const graph = await resolveTarget(repo, target, false);
  const result = compileGraph(graph, repo.catalogue);
  for (const d of result.diagnostics) io.err(formatDiagnostic({ target: graph.name, ...d }));
  if (!result.ok) return 1;
  if (out) {
    await writeRepoFiles(userPath(out), result.files, repo.dir);
    for (const f of result.files) io.out(f.path);
  }
  if (zip) {
    await writeFile(userPath(zip), zipRepoFiles(result.files, repo.dir));
    io.out(`wrote ${zip}`);
  }
  return 0;
}
