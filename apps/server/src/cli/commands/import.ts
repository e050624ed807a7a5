import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { parsePbtxtLenient, printPbtxt } from '@ensemble-studio/core';
import { loadRepository } from '../../repo/loadRepository.ts';
import { isInsideReal } from '../../repo/safeJoin.ts';
import type { Repository } from '../../repo/types.ts';
import { parseCommandArgs, required, userPath } from '../args.ts';
import { CliError, UsageError } from '../errors.ts';
import type { CliIO } from '../io.ts';
import { formatDiagnostic } from './validate.ts';

/** Copies one model directory, re-printing its config.pbtxt (unknown fields kept) when it parses. */
async function copyModel(src: string, out: string, name: string): Promise<string | undefined> {
  const from = join(src, name);
  const to = join(out, name);
  await cp(from, to, {
    recursive: true,
    dereference: true,
    filter: (p) => {
      const rel = relative(from, p);
      return rel !== 'config.pbtxt' && rel !== 'studio.json';
    },
  });
  const configPath = join(from, 'config.pbtxt');
  if (!existsSync(configPath)) return undefined;
  const text = await readFile(configPath, 'utf8');
  const parsed = parsePbtxtLenient(text);
  // A config that does not parse is copied as it is: the problem is reported, nothing is lost.
  await writeFile(join(to, 'config.pbtxt'), parsed.ok ? printPbtxt(parsed.config) : text);
  return parsed.ok
    ? undefined
    : `${name}/config.pbtxt:${parsed.error.line}:${parsed.error.column}: ${parsed.error.message}`;
}

async function writeGraphs(repo: Repository, out: string): Promise<void> {
  for (const g of Object.values(repo.graphs)) {
    await mkdir(join(out, g.name, '1'), { recursive: true });
    await writeFile(join(out, g.name, 'studio.json'), `${JSON.stringify(g, null, 2)}\n`);
  }
}

/**
 * `import TRITON_REPO --out DIR`: writes a studio repository: the same models (files copied,
 * configs re-printed), a studio.json per ensemble. Exit 1 when the source had errors (all that
 * could be imported still is).
 * @example await importCommand(['triton_repo', '--out', 'studio_repo'], io)
 */
export async function importCommand(argv: string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(argv, { out: { type: 'string' } }, 1);
  const source = positionals[0];
  if (source === undefined) throw new UsageError('import needs a Triton repository directory');
  const src = resolve(userPath(source));
  const out = resolve(userPath(required(values, 'out')));
  if (isInsideReal(src, out)) throw new UsageError('--out must not be the source repository or inside it');
  const repo = await loadRepository(src).catch((err: NodeJS.ErrnoException) => {
    throw new CliError(`cannot open repository ${source}: ${err.code ?? err.message}`);
  });
  await mkdir(out, { recursive: true });
  const problems = repo.problems.map((d) => formatDiagnostic({ target: basename(src), ...d }));
  const names = new Set([...Object.keys(repo.catalogue.models), ...Object.keys(repo.graphs)]);
  for (const name of [...names].sort()) {
    const problem = await copyModel(src, out, name);
    if (problem) problems.push(`${basename(src)}: error config: ${problem}`);
  }
  await writeGraphs(repo, out);
  io.out(
    `imported ${Object.keys(repo.catalogue.models).length} model(s) and ${Object.keys(repo.graphs).length} graph(s) into ${out}`,
  );
  for (const p of problems) io.err(p);
  return repo.problems.some((d) => d.severity === 'error') ? 1 : 0;
}
