import type { CustomMetrics } from './customMetrics.ts';
import { existsSync } from 'node:fs';
import { applySettings, catalogueModel, type ModelNode } from '@ensemble-studio/core';
import type { BlsCall, BlsSink } from './backends/python/pythonTypes.ts';
import { ModelRuntime } from './ModelRuntime.ts';
import type { Repository } from '../repo/types.ts';
import type { SequenceEndReason } from './sequenceTypes.ts';
import type { EngineOptions } from './types.ts';
import type { ResponseCache } from './responseCache.ts';

/** What a model's runtime is built from. */
interface RuntimeSpec {
  repository: Repository;
  opts: EngineOptions;
  model: string;
  settings: ModelNode['params']['settings'];
  /** Answers a Python model's BLS call. */
  bls(call: BlsCall, sink: BlsSink): void;
  /** The server's custom metrics. */
  metrics?: CustomMetrics;
  /** The server's response cache, when it has one. */
  responseCache?: ResponseCache;
  /** Hears every sequence the model ends (with its max_sequence_idle_microseconds). */
  onEnded(sequenceId: number | string, reason: SequenceEndReason, idleMicroseconds: number): void;
}

/**
 * A runtime of `model` with `settings` applied, from `repository`, not loaded yet; or, when the model cannot run
 * (not in the repository, a broken config, a backend the studio does not run, no model file), why.
 * @example const rt = buildRuntime({ repository, opts, model: 'det', settings: undefined, bls, onEnded }); if (typeof rt !== 'string') await rt.load();
 */
export function buildRuntime(spec: RuntimeSpec): ModelRuntime | string {
  const { repository, opts, model } = spec;
  const m = catalogueModel(repository.catalogue, model);
  const path = repository.modelFile(model);
  const backend = !m
    ? undefined
    : m.platform === 'onnxruntime_onnx' || m.backend === 'onnxruntime'
      ? 'onnx'
      : m.backend === 'python'
        ? 'python'
        : undefined;
  if (!m) return `model '${model}' is not in the repository`;
  if (m.error) return `model '${model}' failed to load: ${m.error}`;
  if (!backend)
    return `model '${model}' uses ${m.platform || m.backend || 'no backend'}; the studio runs onnxruntime and python models, plus routers, conditions and ops as node kinds`;
  if (!path || !existsSync(path)) return `model '${model}' has no model file in the repository`;
  const log = opts.onModelLog;
  const config = applySettings(m, spec.settings);
  const idleMicroseconds = config.sequence_batching?.max_sequence_idle_microseconds || 1_000_000;
  const version = m.versions.at(-1) ?? 1;
  return new ModelRuntime({
    name: model,
    config,
    path,
    backend,
    repoDir: repository.dir,
    intraOpThreads: opts.intraOpThreads ?? 1,
    gpu: opts.gpu ?? 'auto',
    // Starts waiting for a sequence slot each hold a run: a quarter of the runs at most, so one model's backlog
    // cannot take every run from the other models.
    maxSequenceBacklog: Math.max(1, Math.floor((opts.maxConcurrentRuns ?? 64) / 4)),
    ...(opts.tensorLimits ? { limits: opts.tensorLimits } : {}),
    onEnded: (sequenceId, reason) => spec.onEnded(sequenceId, reason, idleMicroseconds),
    ...(spec.responseCache ? { responseCache: { cache: spec.responseCache, version } } : {}),
    python: {
      interpreter: opts.python ?? process.env.STUDIO_PYTHON ?? 'python3',
      version,
      bls: (call, sink) => spec.bls(call, sink),
      ...(spec.metrics ? { metrics: spec.metrics } : {}),
      ...(log
        ? { log: (instance: string, level: string, message: string) => log(model, instance, level, message) }
        : {}),
    },
  });
}
