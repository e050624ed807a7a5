import type { CustomMetrics } from '../../customMetrics.ts';
import type { TensorLimits } from '../../types.ts';
import type { BlsHandler, LogLevel } from './pythonTypes.ts';

/** How to start one instance's python3 process. */
export interface PythonSpec {
  model: string;
  /** Absolute path of the model's `model.py`. */
  modelFile: string;
  /** The model's directory (Triton's `model_repository` argument). */
  modelDir: string;
  version: number;
  /** The model's config as JSON (what `initialize` gets as `args['model_config']`). */
  configJson: string;
  python: string;
  bls: BlsHandler;
  /** The server's custom metrics: the stub's `metric` frames go there, and the instance's metrics leave as it ends. */
  metrics?: CustomMetrics;
  /** Server log of every line the process writes (with no request to tie it to, too). */
  log?: (instance: string, level: LogLevel, message: string) => void;
  /** What one tensor the model sends may hold (the stub refuses more before it is written); none when absent. */
  limits?: TensorLimits;
  /** After a cancelled execute, how long to wait for `execute` to return before the process is killed and restarted. */
  stuckKillMs?: number;
  /** Where the instance's region files for large tensors go (a tmpfs); `/dev/shm` when absent. */
  shmDir?: string;
}

/** Triton's name of instance `name` of `model` (`<model>_0_<index>`): what `initialize` gets and load errors name. */
export function tritonInstanceName(model: string, name: string): string {
  return `${model}_0_${name.slice(name.lastIndexOf('_') + 1)}`;
}

/** The keys Triton's `initialize(args)` gets (all strings), for instance `name` started from `spec`. */
export function initArgs(spec: PythonSpec, name: string): Record<string, string> {
  return {
    model_config: spec.configJson,
    model_instance_kind: 'CPU',
    model_instance_name: tritonInstanceName(spec.model, name),
    model_instance_device_id: '0',
    model_repository: spec.modelDir,
    model_version: String(spec.version),
    model_name: spec.model,
  };
}
