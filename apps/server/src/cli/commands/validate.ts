import type { Diagnostic } from '@ensemble-studio/core';
import {
  compileGraph,
  effectiveConfig,
  hasErrors,
  parsePbtxt,
  printPbtxt,
  validateEnsembleConfigs,
  validateGraph,
  validateModelConfig,
} from '@ensemble-studio/core';
import type { ModelConfig } from '@ensemble-studio/core';
import type { Repository } from '../../repo/types.ts';
import { loadRepository } from '../../repo/loadRepository.ts';
import { directoryValue, parseCommandArgs, str } from '../args.ts';
import { CliError } from '../errors.ts';
import { isGraphFile, readGraphFile } from '../target.ts';
import type { CliIO } from '../io.ts';

/** A diagnostic with what it is about (a model, a graph, a file). */
export interface TargetDiagnostic extends Diagnostic {
  target: string;
}

const tag = (target: string, ds: Diagnostic[]): TargetDiagnostic[] => ds.map((d) => ({ target, ...d }));

/** Every model config, every ensemble (cross-model rules) and every graph of the repository. */
export function validateRepository(repo: Repository): TargetDiagnostic[] {
  const out: TargetDiagnostic[] = [];
  out.push(...tag(repo.dir, repo.problems));
  const models = Object.values(repo.catalogue.models);
  const loaded = models.filter((m) => !m.error);
  const configs = Object.fromEntries(loaded.map((m) => [m.name, m.config]));
  // A model that failed to load after its config parsed (a missing model file) still gets its config checked, as Triton checks it first.
  for (const m of models.filter((x) => !x.error || Object.keys(x.config).length > 1)) {
    out.push(...tag(m.name, validateModelConfig(m.config, { dirName: m.name, versions: m.versions })));
  }
  out.push(
    ...tag('ensembles', validateEnsembleConfigs(configs, Object.fromEntries(loaded.map((m) => [m.name, m.versions])))),
  );
  for (const g of Object.values(repo.graphs)) out.push(...tag(g.name, validateGraph(g, repo.catalogue)));
  return out;
}

async function validateTarget(repo: Repository, target: string): Promise<TargetDiagnostic[]> {
  if (isGraphFile(target)) {
    const graph = await readGraphFile(target);
    return tag(target, validateGraph(graph, repo.catalogue));
  }
  const graph = repo.graphs[target];
  if (graph) return tag(target, validateGraph(graph, repo.catalogue));
  const model = repo.catalogue.models[target];
  if (!model) throw new CliError(`no graph or model named "${target}" in ${repo.dir}`);
  const rules = tag(target, validateModelConfig(model.config, { dirName: target, versions: model.versions }));
  if (model.error)
    return [
      { target, code: 'model-load', severity: 'error', message: model.error },
      ...(Object.keys(model.config).length > 1 ? rules : []),
    ];
  return rules;
}

/** The config.pbtxt Triton would report for a model (or a graph's compiled ensemble) after load. */
function effectiveText(repo: Repository, target: string): string {
  const configs: Record<string, ModelConfig> = {};
  for (const m of Object.values(repo.catalogue.models))
    if (!m.error) Object.defineProperty(configs, m.name, { value: m.config, enumerable: true });
  const model = Object.hasOwn(repo.catalogue.models, target) ? repo.catalogue.models[target] : undefined;
  const graph = Object.hasOwn(repo.graphs, target) ? repo.graphs[target] : undefined;
  let config = model && !model.error ? model.config : undefined;
  if (graph) {
    const text = compileGraph(graph, repo.catalogue).files.find((f) => f.path === `${target}/config.pbtxt`)?.text;
    const parsed = text === undefined ? undefined : parsePbtxt(text);
    if (parsed?.ok) config = parsed.config;
  }
  if (!config)
    throw new CliError(
      model?.error
        ? `model "${target}" does not load: ${model.error}`
        : `no loadable model or compiling graph named "${target}" in ${repo.dir}`,
    );
  return printPbtxt(effectiveConfig(config, { dirName: target, configs }));
}

/** One human line per diagnostic. */
export function formatDiagnostic(d: TargetDiagnostic): string {
  const where = [d.nodeId && `node ${d.nodeId}`, d.edgeId && `edge ${d.edgeId}`, d.port && `port ${d.port}`]
    .filter(Boolean)
    .join(', ');
  return `${d.target}: ${d.severity} ${d.code}: ${d.message}${where ? ` (${where})` : ''}${d.fix ? ` — fix: ${d.fix}` : ''}`;
}

/**
 * `validate [NAME|GRAPH.json] --repo DIR [--json]`: exit 1 on any error diagnostic.
 * `validate NAME --effective` prints, as config.pbtxt, the config Triton would report for NAME after load.
 * @example await validateCommand(['ocr', '--repo', 'examples/model_repository'], io)
 */
export async function validateCommand(argv: string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    argv,
    { repo: { type: 'string' }, json: { type: 'boolean' }, effective: { type: 'boolean' } },
    1,
  );
  const repo = await loadRepository(directoryValue(str(values, 'repo', io.defaultRepo)!, 'repo')).catch(
    (err: NodeJS.ErrnoException) => {
      throw new CliError(`cannot open repository: ${err.code ?? err.message}`);
    },
  );
  const target = positionals[0];
  if (values.effective) {
    if (target === undefined) throw new CliError('validate --effective needs a model or graph name');
    io.out(effectiveText(repo, target).trimEnd());
    return 0;
  }
  const diagnostics = target === undefined ? validateRepository(repo) : await validateTarget(repo, target);
  const ok = !hasErrors(diagnostics);
  if (values.json) {
    io.out(JSON.stringify({ ok, diagnostics }));
  } else {
    for (const d of diagnostics) io.out(formatDiagnostic(d));
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    io.out(
      `${errors} error(s), ${diagnostics.filter((d) => d.severity === 'warning').length} warning(s)${ok ? ' — ok' : ''}`,
    );
  }
  return ok ? 0 : 1;
}
