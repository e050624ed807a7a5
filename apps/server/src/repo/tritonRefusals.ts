import { validateModelConfig } from '@ensemble-studio/core';
import type { Repository } from './types.ts';

/**
 * What Triton would refuse to load in `repository`: each model's config errors by its rules (validateModelConfig), as
 * `model 'name': message`. The studio serves such a model as well as it can (an editor's user is fixing it), and
 * `serve` prints these once it is up, so what Triton would say is not found only on a Triton server.
 * @example tritonRefusals(repository) // ["model 'm': Response Cache does not currently support model m with …"]
 */
export function tritonRefusals(repository: Repository): string[] {
  const out: string[] = [];
  for (const [name, m] of Object.entries(repository.catalogue.models)) {
    if (m.error) continue; // not loaded at all: the repository's problems say why
    for (const d of validateModelConfig(m.config, { dirName: name, versions: m.versions }))
      if (d.severity === 'error') out.push(`model '${name}': ${d.message}`);
  }
  return out;
}
