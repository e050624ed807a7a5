import type { DataType, TensorData, TensorSummary } from '@ensemble-studio/core';

/** A tensor crossing the thread boundary; numeric data travels in the transfer list. */
export interface PortableTensor { datatype: DataType; shape: number[]; data: TensorData }

/** What a worker hosts: one onnxruntime session (a model instance) or the built-in ops. */
export type LoadSpec =
  | {
      kind: 'model';
      model: string;
      path: string;
      /** Execution providers to try in order; the first that works is used. */
      providers: string[];
      intraOpThreads: number;
      /** Thread nice value (see `workerNice`). */
      nice: number;
      /** Feeds for the warm-up run (empty = none). */
      warmup: Record<string, PortableTensor>[];
    }
  | { kind: 'ops'; repoDir: string };

/** Main → worker. */
export type ToWorker =
  | { type: 'load'; spec: LoadSpec }
  /** `summarize`: also send stats/thumbnails of the outputs (only runs someone watches need them). */
  | { type: 'run'; id: number; feeds: Record<string, PortableTensor>; summarize: boolean }
  | { type: 'op'; id: number; op: string; inputs: Record<string, PortableTensor>; values: Record<string, number | string | boolean>; summarize: boolean }
  /** Fault injection for tests and operators: the worker exits abruptly, like a native crash. */
  | { type: 'crash' };

/** Worker → main. */
export type FromWorker =
  | {
      type: 'loaded';
      provider: string;
      inputNames: string[];
      outputNames: string[];
      /** Providers that were tried and failed, with onnxruntime's reason. */
      failures: string[];
      loadMs: number;
      warmupMs?: number;
      warmupError?: string;
    }
  | { type: 'load-failed'; message: string }
  /** `summaries`: each output summarised in the worker (stats, preview, thumbnail) so the main thread doesn't; empty unless asked. */
  | { type: 'result'; id: number; outputs: Record<string, PortableTensor>; computeNs: number; summaries: Record<string, TensorSummary> }
  | { type: 'error'; id: number; message: string };
