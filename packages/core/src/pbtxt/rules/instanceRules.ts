/**
 * Instance-group rules of one config (core `ValidateInstanceGroup`, `ValidateEnsembleSchedulingConfig`),
 * in Triton's wording. Groups are named as Triton names them (`<model>_<index>` when unnamed).
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { asList, error, isEnsemble, warning } from './util.ts';

/** Kinds and GPUs, TensorRT-only profiles, rate-limiter resources; an ensemble has no instance groups. */
export function checkInstanceGroups(config: ModelConfig, m: string): Diagnostic[] {
  const groups = asList(config.instance_group);
  const name = config.name || m;
  if (isEnsemble(config)) {
    return groups.length
      ? [
          error(
            'ensemble-instance-group',
            `instance group should not be specified for ensemble '${name}'`,
            'remove instance_group (scale the composing models instead)',
          ),
        ]
      : [];
  }
  const out: Diagnostic[] = [];
  groups.forEach((g, i) => {
    const label = `instance group ${typeof g.name === 'string' && g.name ? g.name : `${name}_${i}`} of model ${name}`;
    const gpus = asList<number>(g.gpus);
    if ((g.kind === 'KIND_CPU' || g.kind === 'KIND_MODEL') && gpus.length > 0) {
      out.push(
        error(
          'instance-group-gpus',
          `${label} has kind ${g.kind} but specifies one or more GPUs`,
          'remove gpus or use kind: KIND_GPU',
        ),
      );
    }
    for (const id of gpus.filter((x) => x < 0)) {
      out.push(
        error(
          'instance-group-gpu-id',
          `${label} specifies invalid or unsupported gpu id ${id}. GPUs with at least the minimum required CUDA compute compatibility are numbered from 0`,
          'use GPU ids 0, 1, …',
        ),
      );
    }
    if (typeof g.count === 'number' && g.count < 0) {
      out.push(
        warning(
          'instance-group-count',
          `${label} has count ${g.count}; Triton ignores it and uses the default`,
          'set count to 1 or more',
        ),
      );
    }
    const profiles = asList<string>(g.profile);
    if (profiles.length > 0 && config.platform !== 'tensorrt_plan') {
      out.push(
        error(
          'instance-group-profile',
          `${label} and platform ${config.platform ?? ''} specifies profile field which is only supported for TensorRT models`,
          'remove profile',
        ),
      );
    } else {
      for (const p of profiles.filter((x) => !/^\d+$/.test(String(x)))) {
        out.push(
          error(
            'instance-group-profile',
            `${label} and platform ${config.platform ?? ''} specifies invalid profile ${p}. The field should contain the string representation of a non-negative integer.`,
            'use profile indices such as "0"',
          ),
        );
      }
    }
    const names = new Set<string>();
    for (const r of asList(
      g.rate_limiter === undefined ? undefined : (g.rate_limiter as { resources?: unknown }).resources,
    )) {
      const rname = typeof r.name === 'string' ? r.name : '';
      if (!rname)
        out.push(
          error(
            'rate-limiter-resource-name',
            `${label} has a rate_limiter resource without a name`,
            'name every resource',
          ),
        );
      else if (names.has(rname))
        out.push(
          error(
            'rate-limiter-resource-duplicate',
            `${label} lists rate_limiter resource '${rname}' more than once; only the last count would apply`,
            `keep one '${rname}' entry`,
          ),
        );
      names.add(rname);
    }
  });
  return out;
}
