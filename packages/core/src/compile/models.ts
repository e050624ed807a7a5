import type { CatalogueModel } from '../catalogue/types.ts';
import type { ModelNode } from '../graph/types.ts';
import { sameSettings } from '../config/nodeSettings.ts';
import type { ModelConfig } from '../pbtxt/modelConfig.ts';
import type { Diagnostic } from '../validate/diagnostic.ts';
import type { RepoFile } from './types.ts';

/**
 * Groups model nodes by model; two nodes of one model with different settings cannot both be
 * written into its single config.pbtxt, so the first node's settings win and an error is reported.
 */
export function modelsToExport(nodes: readonly ModelNode[]): {
  byModel: Map<string, ModelNode>;
  diagnostics: Diagnostic[];
} {
  const byModel = new Map<string, ModelNode>();
  const diagnostics: Diagnostic[] = [];
  for (const n of nodes) {
    const first = byModel.get(n.params.model);
    if (!first) {
      byModel.set(n.params.model, n);
      continue;
    }
    if (!sameSettings(first.params.settings, n.params.settings)) {
      diagnostics.push({
        code: 'conflicting-model-settings',
        severity: 'error',
        nodeId: n.id,
        message: `${n.id} and ${first.id} both use model '${n.params.model}' with different settings; a model has one config.pbtxt`,
        fix: `give ${n.id} the same settings as ${first.id}`,
      });
    }
  }
  return { byModel, diagnostics };
}

/** The file Triton loads from a version directory of this model. */
function modelFileName(config: ModelConfig): string {
  if (config.default_model_filename) return config.default_model_filename;
  const kind = `${config.platform ?? ''} ${config.backend ?? ''}`;
  if (/python/.test(kind)) return 'model.py';
  if (/tensorrt/.test(kind)) return 'model.plan';
  if (/torch_aoti/.test(kind)) return 'model.pt2';
  if (/pytorch|libtorch/.test(kind)) return 'model.pt';
  if (/openvino/.test(kind)) return 'model.xml';
  if (/tensorflow_savedmodel/.test(kind)) return 'model.savedmodel';
  if (/tensorflow/.test(kind)) return 'model.graphdef';
  return 'model.onnx';
}

/**
 * Files a composing model needs besides its config: each version's model file (copied from the
 * source repository), an empty version dir for nested ensembles, label files, initial-state files.
 */
export function composingModelFiles(model: CatalogueModel, config: ModelConfig): RepoFile[] {
  const files: RepoFile[] = [];
  const versions = model.versions.length > 0 ? model.versions : [1];
  for (const v of versions) {
    if (config.platform === 'ensemble') files.push({ path: `${model.name}/${v}/.gitkeep`, text: '' });
    else {
      const f = `${model.name}/${v}/${modelFileName(config)}`;
      files.push({ path: f, copyFrom: f });
    }
  }
  const extra = new Set<string>();
  for (const o of config.output ?? []) if (o.label_filename) extra.add(o.label_filename);
  for (const s of config.sequence_batching?.state ?? []) {
    for (const init of s.initial_state ?? []) if (init.data_file) extra.add(`initial_state/${init.data_file}`);
  }
  for (const w of config.model_warmup ?? []) {
    for (const i of Object.values(w.inputs ?? {})) if (i.input_data_file) extra.add(`warmup/${i.input_data_file}`);
  }
  for (const f of [...extra].sort()) files.push({ path: `${model.name}/${f}`, copyFrom: `${model.name}/${f}` });
  return files;
}
