import type { GraphDoc } from '@ensemble-studio/core';
import {
  catalogueModel,
  catalogueModelFromConfig,
  compileGraph,
  normalizeConfig,
  parsePbtxt,
} from '@ensemble-studio/core';
import type { CompiledHelpers, Studio } from './Studio.ts';

/**
 * A model the compiler generates for one step of a saved graph (a router, a gate, an op: `ocr_has_text`),
 * served as Triton serves every composing model of an ensemble. `model` is its catalogue entry built from
 * its compiled config; inference runs its generated model.py in the graph's exported repository.
 */
export type HelperModel = CompiledHelpers['helpers'][number];

/**
 * The helper models of one saved graph: every `<name>/config.pbtxt` its compilation writes that is
 * neither the graph's own ensemble nor a model of the repository. None when the graph does not compile.
 * Compiled once per graph document and catalogue (remembered by the studio).
 * @example graphHelpers(studio, ocr).map((h) => h.name) // ['ocr_angle', …, 'ocr_has_text', 'ocr_preprocess']
 */
export function graphHelpers(studio: Studio, graph: GraphDoc): HelperModel[] {
  const catalogue = studio.catalogue;
  const hit = studio.compiledHelpers.get(graph);
  if (hit && hit.catalogue === catalogue) return hit.helpers;
  const result = compileGraph(graph, catalogue);
  const helpers: HelperModel[] = [];
  for (const f of result.ok ? result.files : []) {
    const name = /^([^/]+)\/config\.pbtxt$/.exec(f.path)?.[1];
    if (name === undefined || f.text === undefined || name === graph.name || catalogueModel(catalogue, name)) continue;
    const parsed = parsePbtxt(f.text);
    if (!parsed.ok) continue;
    const model = catalogueModelFromConfig(name, normalizeConfig(parsed.config, { dirName: name }), [1]);
    helpers.push({ name, graph, model });
  }
  studio.compiledHelpers.set(graph, { catalogue, helpers });
  return helpers;
}

/**
 * Every helper model of every saved graph of the open repository, by name (the compiler prefixes them
 * with their graph's name, so two graphs do not share one).
 * @example allHelpers(studio).has('ocr_has_text') // true
 */
export function allHelpers(studio: Studio): Map<string, HelperModel> {
  const out = new Map<string, HelperModel>();
  for (const name of Object.keys(studio.repository.graphs).sort()) {
    for (const h of graphHelpers(studio, studio.repository.graphs[name]!)) if (!out.has(h.name)) out.set(h.name, h);
  }
  return out;
}

/** The helper model called `name`, if a saved graph generates one. */
export function findHelper(studio: Studio, name: string): HelperModel | undefined {
  return allHelpers(studio).get(name);
}
