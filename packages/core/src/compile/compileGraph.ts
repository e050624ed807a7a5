import type { Catalogue } from '../catalogue/types.ts';
import type { GraphDoc, ModelNode } from '../graph/types.ts';
import { printPbtxt } from '../pbtxt/index.ts';
import { hasErrors, type Diagnostic } from '../validate/diagnostic.ts';
import { isValidTritonName, validateGraph } from '../validate/index.ts';
import { buildGraphInfo } from './graphInfo.ts';
import { ensembleConfig } from './ensemble.ts';
import { applySettings } from '../config/nodeSettings.ts';
import { composingModelFiles, modelsToExport } from './models.ts';
import { planEnsemble, type EnsemblePlan } from './plan.ts';
import { tritonSafe } from './pyStr.ts';
import { blsModel } from './python/bls.ts';
import type { GeneratedModel } from './python/common.ts';
import { conditionModel } from './python/condition.ts';
import { opModel } from './python/opModel.ts';
import { routerModel } from './python/router.ts';
import { exportReadme, minimumTriton, type ExportStrategy, type ReadmeModel } from './readme.ts';
import type { CompileResult, RepoFile } from './types.ts';
import { catalogueModel } from '../catalogue/types.ts';

export interface CompileOptions {
  /** The Triton release the repository is for, e.g. `24.05`; checked against what the export needs. */
  tritonVersion?: string;
}

/**
 * Compiles a graph to a Triton model repository (a file map). `ok` is false when validation (or
 * compilation) found errors; the files are still returned so the editor can preview them.
 * @example compileGraph(graph, catalogue).files.map((f) => f.path) // ['README.md', 'ocr/1/.gitkeep', 'ocr/config.pbtxt', …]
 */
export function compileGraph(graph: GraphDoc, catalogue: Catalogue, opts: CompileOptions = {}): CompileResult {
  const validation = safeValidate(graph, catalogue);
  const safe = { ...graph, name: safeModelName(graph.name) };
  const plan = planEnsemble(buildGraphInfo(safe, catalogue));
  const strategy = exportStrategy(safe);
  const own: Diagnostic[] = [];
  const files: RepoFile[] = [];
  const roles: ReadmeModel[] = [];
  const generated = strategy === 'bls' ? [blsModel(plan)] : generatedModels(plan);
  if (strategy === 'bls') {
    own.push(...plan.diagnostics.filter((d) => d.code !== 'output-from-input'));
    roles.push({ name: safe.name, role: 'Python BLS model (entry point): runs the whole graph' });
  } else {
    own.push(...plan.diagnostics);
    files.push(
      { path: `${safe.name}/config.pbtxt`, text: printPbtxt(ensembleConfig(plan)) },
      { path: `${safe.name}/1/.gitkeep`, text: '' },
    );
    roles.push({ name: safe.name, role: 'ensemble (entry point)' });
  }
  for (const g of generated) {
    own.push(...g.diagnostics);
    files.push({ path: `${g.name}/config.pbtxt`, text: printPbtxt(g.config) }, ...g.files);
    if (strategy !== 'bls') roles.push({ name: g.name, role: generatedRole(g) });
  }
  const composing = composingModels(safe, catalogue, own);
  files.push(...composing.files);
  roles.push(...composing.roles);
  own.push(...nameCollisions(safe, catalogue, generated));
  const decoupled = strategy === 'gate' || composing.decoupled;
  own.push(...versionCheck(opts.tritonVersion, strategy, decoupled));
  const readme = exportReadme({
    graph: safe,
    strategy,
    decoupled: strategy !== 'bls' && decoupled,
    stateful: composing.stateful,
    models: roles,
    minTriton: minimumTriton(strategy, decoupled),
    ...(opts.tritonVersion ? { tritonVersion: opts.tritonVersion } : {}),
  });
  files.push({ path: 'README.md', text: readme });
  const diagnostics = mergeDiagnostics(validation, own);
  return { ok: !hasErrors(diagnostics), files: sortFiles(files), diagnostics };
}

/** The export strategy: any `bls` condition makes the whole graph one BLS model. */
export function exportStrategy(graph: GraphDoc): ExportStrategy {
  const strategies = new Set(graph.nodes.flatMap((n) => (n.kind === 'condition' ? [n.params.strategy] : [])));
  if (strategies.has('bls')) return 'bls';
  if (strategies.has('gate')) return 'gate';
  if (strategies.has('error')) return 'error';
  return 'ensemble';
}

/**
 * The graph's name when valid, else a sanitised form safe as a directory and model name (the
 * invalid name itself is reported by validation).
 * @example safeModelName('../x') === '__x'
 */
export function safeModelName(name: string): string {
  if (isValidTritonName(name)) return name;
  const s = tritonSafe(name).replace(/^\.+/, '_').slice(0, 128);
  return s === '' ? '_' : s;
}

function safeValidate(graph: GraphDoc, catalogue: Catalogue): Diagnostic[] {
  try {
    return validateGraph(graph, catalogue);
  } catch (e) {
    return [{ code: 'validation-crashed', severity: 'error', message: `validation failed: ${(e as Error).message}` }];
  }
}

function generatedModels(plan: EnsemblePlan): GeneratedModel[] {
  const out: GeneratedModel[] = [];
  for (const s of plan.steps) {
    const n = s.node;
    if (n.kind === 'router') out.push(routerModel(plan.info, n));
    else if (n.kind === 'condition') out.push(conditionModel(plan.info, n));
    else if (n.kind === 'op') out.push(opModel(plan.info, n));
  }
  return out;
}

function generatedRole(g: GeneratedModel): string {
  const marker = g.config.parameters?.ensemble_studio?.string_value ?? '{}';
  const m = JSON.parse(marker) as { kind?: string; count?: number; strategy?: string; op?: string };
  if (m.kind === 'router') return `generated Python: copy router (${m.count ?? 0} independent copies)`;
  if (m.kind === 'condition')
    return m.strategy === 'gate'
      ? 'generated Python: decoupled gate (ends the request with zero responses when the condition holds)'
      : 'generated Python: error gate (fails the request when the condition holds)';
  if (m.kind === 'op') return `generated Python: built-in op ${m.op ?? ''} (numpy)`;
  return 'generated Python model';
}

interface Composing {
  files: RepoFile[];
  roles: ReadmeModel[];
  decoupled: boolean;
  stateful: boolean;
}

function composingModels(graph: GraphDoc, catalogue: Catalogue, diagnostics: Diagnostic[]): Composing {
  const nodes = graph.nodes.filter((n): n is ModelNode => n.kind === 'model');
  const { byModel, diagnostics: conflicts } = modelsToExport(nodes);
  diagnostics.push(...conflicts);
  const out: Composing = { files: [], roles: [], decoupled: false, stateful: false };
  for (const [name, node] of byModel) {
    const model = catalogueModel(catalogue, name);
    if (!model || !isValidTritonName(name)) continue;
    const config = applySettings(model, node.params.settings);
    out.files.push({ path: `${name}/config.pbtxt`, text: printPbtxt(config) }, ...composingModelFiles(model, config));
    const decoupled = config.model_transaction_policy?.decoupled === true;
    const stateful = config.sequence_batching !== undefined;
    out.decoupled ||= decoupled;
    out.stateful ||= stateful;
    const kind = config.platform || config.backend || 'model';
    out.roles.push({
      name,
      role: `composing model (${kind}${decoupled ? ', decoupled' : ''}${stateful ? ', stateful: sequence batching' : ''})`,
    });
  }
  return out;
}

function nameCollisions(graph: GraphDoc, catalogue: Catalogue, generated: GeneratedModel[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Map<string, string>([[graph.name, 'the graph']]);
  for (const n of graph.nodes)
    if (n.kind === 'model' && n.params.model === graph.name) {
      out.push({
        code: 'name-collision',
        severity: 'error',
        nodeId: n.id,
        message: `the graph is named like its model '${graph.name}'`,
        fix: 'rename the graph',
      });
    }
  for (const g of generated) {
    if (g.name === graph.name) continue;
    const existing = catalogueModel(catalogue, g.name);
    const clash = seen.get(g.name) ?? (existing && !existing.generated ? `repository model '${g.name}'` : undefined);
    if (clash)
      out.push({
        code: 'name-collision',
        severity: 'error',
        message: `generated model '${g.name}' collides with ${clash}`,
        fix: 'rename the node or the graph',
      });
    seen.set(g.name, `generated model '${g.name}'`);
  }
  return out;
}

function versionCheck(version: string | undefined, strategy: ExportStrategy, decoupled: boolean): Diagnostic[] {
  const m = version ? /(\d+)\.(\d+)/.exec(version) : null;
  if (!m) return [];
  const need = minimumTriton(strategy, decoupled);
  const [ny, nm] = need.split('.').map(Number) as [number, number];
  const y = Number(m[1]);
  const mo = Number(m[2]);
  if (y > ny || (y === ny && mo >= nm)) return [];
  return [
    {
      code: 'triton-too-old',
      severity: 'error',
      message: `this export needs Triton ${need} or newer (target: ${version})`,
      fix: strategy === 'gate' ? 'use the error or bls strategy, or a newer Triton' : `use Triton ${need} or newer`,
    },
  ];
}

/** Validation first; compiler diagnostics that repeat one (same code, node and port) are dropped. */
function mergeDiagnostics(validation: Diagnostic[], own: Diagnostic[]): Diagnostic[] {
  const key = (d: Diagnostic): string => `${d.code}|${d.nodeId ?? ''}|${d.port ?? ''}`;
  const seen = new Set(validation.map(key));
  const out = [...validation];
  for (const d of own) {
    const k = key(d);
    if (
      seen.has(k) ||
      (d.code === 'unused-output' && seen.has(`router-output-unconnected|${d.nodeId ?? ''}|${d.port ?? ''}`))
    )
      continue;
    seen.add(k);
    out.push(d);
  }
  return out;
}

/** Files sorted by path (README first), last writer of a path wins. */
function sortFiles(files: RepoFile[]): RepoFile[] {
  const byPath = new Map<string, RepoFile>();
  for (const f of files) byPath.set(f.path, f);
  return [...byPath.values()].sort((a, b) =>
    a.path === 'README.md' ? -1 : b.path === 'README.md' ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
}
