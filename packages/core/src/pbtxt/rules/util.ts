/** Small helpers shared by the config rules. */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';

export const error = (code: string, message: string, fix: string, port?: string): Diagnostic =>
  port === undefined ? { code, severity: 'error', message, fix } : { code, severity: 'error', message, fix, port };

export const warning = (code: string, message: string, fix: string, port?: string): Diagnostic =>
  port === undefined ? { code, severity: 'warning', message, fix } : { code, severity: 'warning', message, fix, port };

/** The name a diagnostic uses for a model: its config name, else the directory name, else `(unnamed)`. */
export const modelLabel = (config: ModelConfig, dirName?: string): string => config.name || dirName || '(unnamed)';

export const isEnsemble = (config: ModelConfig): boolean => config.platform === 'ensemble';

export const asRecord = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export const asList = <T = Record<string, unknown>>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

export const formatDims = (dims: readonly number[]): string => `[${dims.join(', ')}]`;

export const isDecoupled = (config: ModelConfig | undefined): boolean =>
  config?.model_transaction_policy?.decoupled === true;
