import type { EngineError } from '../errors.ts';

// The contract every backend's model instance keeps, so the pool, the batchers and the sequence batcher
// above it work the same for an onnxruntime session in a worker thread and a python3 process.

/** What an instance reports once it has loaded (and warmed up). */
export interface LoadInfo {
  /** Where it runs: an execution provider (`cpu`, `cuda` …) or `python`. */
  provider: string;
  /** Execution providers that were tried and failed, with the reason. */
  failures: string[];
  warmupMs?: number;
  warmupError?: string;
}

/**
 * One model instance (Triton's instance_group member). `request` runs one request body at a time in the
 * order sent; a request may stream responses through its body before it resolves (decoupled models).
 * When the instance dies unexpectedly every pending request fails with `instance-crashed` and the
 * owner's crash callback fires so the pool can restart it.
 */
export interface BackendInstance<Body, Result> {
  readonly name: string;
  state: 'loading' | 'ready' | 'dead' | 'closed';
  /** Starts the thread or process and loads the model; resolves with what loaded. */
  start(): Promise<LoadInfo>;
  /**
   * Sends one request; `transfer` buffers may move to the instance (detached here afterwards). `freed` is called
   * when the instance can take its next request before this one settles (a decoupled Python model's `execute`
   * returned while its responses are still to come).
   */
  request(body: Body, transfer: ArrayBuffer[], freed?: () => void): Promise<Result>;
  /**
   * Has the instance poll for its next request for up to `ns` instead of sleeping, where it can (a worker thread:
   * Placer.spinAhead); a request that comes meanwhile is taken with no wake-up of its CPU.
   */
  spin?(ns: number): void;
  /**
   * Has this instance's worker run the request that reads its next request's outputs, on its own copy of `to`'s model
   * (hostAhead.ts): that copy's key and the id the request is registered under; undefined until the copy is loaded,
   * or where instances cannot (Python's stubs, an instance not running).
   */
  host?(to: BackendInstance<Body, Result>): { guest: string; id: number } | undefined;
  /** A request registered to run in another instance's worker that will not run: it fails at once. */
  release?(id: number): void;
  /** Fault injection: the instance dies abruptly, as a native crash would. */
  crash(): void;
  /** Stops it; pending requests fail with `closed`. */
  close(): Promise<void>;
}

/** Makes instance `name`; `onCrash` is called when it dies unexpectedly. */
export type InstanceFactory<Body, Result> = (
  name: string,
  onCrash: (inst: BackendInstance<Body, Result>, err: EngineError) => void,
) => BackendInstance<Body, Result>;
