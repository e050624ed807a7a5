import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ModelConfig, Tensor } from '@ensemble-studio/core';
import type { Batcher } from './Batcher.ts';
import type { BackendCall, BackendReply, ModelBackend } from './backends/modelBackend.ts';
import { OnnxBackend } from './backends/onnx/OnnxBackend.ts';
import { createBackend } from './createBackend.ts';
import { type BatchItem, createDynamicBatcher, type ItemResult } from './dynamicBatching.ts';
import { ChainError, EngineError, messageOf } from './errors.ts';
import { failureReason } from './failureReason.ts';
import { ModelStats, recordExecution } from './Metrics.ts';
import { ModelCache } from './modelCache.ts';
import { OrderedReplies } from './orderedReplies.ts';
import { checkInputTypes } from './omittedInputs.ts';
import type { ChainRequest, ChainResult, InferRequest, InferResult, ModelRuntimeOptions } from './modelRuntimeTypes.ts';
import { firstDim, fromReply, fromSequence, passThrough } from './inferResults.ts';
import { RequestsInFlight } from './RequestsInFlight.ts';
import { SequenceBatcher } from './SequenceBatcher.ts';

/**
 * One model as Triton schedules it: its backend's instance pool (worker sessions or python3 processes),
 * fed directly, through the dynamic batcher (`dynamic_batching` with max_batch_size > 0) or through the
 * sequence batcher.
 */
export class ModelRuntime {
  state: 'loading' | 'ready' | 'unavailable' = 'loading';
  error: string | undefined;
  provider = 'cpu';
  /** Execution providers that were tried and failed, with the reason. */
  failures: string[] = [];
  notices: string[] = [];
  coldStartMs: number | undefined;
  firstRunMs: number | undefined;
  readonly stats = new ModelStats();
  readonly backend: ModelBackend;
  readonly sequences: SequenceBatcher | undefined;
  /** Input name → rank without the batch dim (the config is fixed for the runtime's life). */
  readonly inputRanks: ReadonlyMap<string, number>;
  private readonly batcher: Batcher<BatchItem, ItemResult> | undefined;
  private readonly inFlight = new RequestsInFlight();
  /** Requests accepted into the model's scheduler and not yet answered (executing ones included). */
  private accepted = 0;
  /** `max_batch_size` > 0: a request's first dim is its batch; otherwise each request is one inference, as in Triton. */
  private readonly batches: boolean;
  /** The server's response cache, for a model whose config enables it. */
  private readonly cache: ModelCache | undefined;
  /** `dynamic_batching.preserve_ordering`: replies given in the order the requests came. */
  private readonly ordered: OrderedReplies | undefined;

  constructor(private readonly o: ModelRuntimeOptions) {
    const cfg = o.config;
    this.inputRanks = new Map((cfg.input ?? []).map((i) => [i.name, i.dims.length]));
    const readFile = (f: string) => readFileSync(join(dirname(dirname(o.path)), 'initial_state', f));
    this.backend = createBackend(o, readFile);
    this.notices.push(...this.backend.notices);
    const mbs = cfg.max_batch_size ?? 0;
    this.batches = mbs > 0;
    if (cfg.sequence_batching) {
      this.sequences = new SequenceBatcher({
        model: o.name,
        config: cfg,
        instances: this.pool.size,
        instanceName: (i) => `${o.name}_${i}`,
        readFile,
        batchesRows: this.backend.concatenates,
        run: (feeds, instance, signal, summarize, fresh, flags, extra) =>
          this.execute({
            inputs: feeds,
            pin: instance,
            signal,
            canTransfer(t) {
              return fresh?.has(t) === true;
            },
            summarize,
            ...(flags ? { sequence: flags } : {}),
            ...(extra as Pick<BackendCall, 'respond' | 'onLog' | 'requests'>),
          }),
        onBound: o.onBound,
        onEnded: o.onEnded,
        ...(o.maxSequenceBacklog === undefined ? {} : { maxBacklog: o.maxSequenceBacklog }),
      });
      this.pool.onCrash((i, err) => this.sequences?.instanceFailed(i, err.message));
    } else if (cfg.dynamic_batching && mbs > 0) {
      this.batcher = createDynamicBatcher(cfg, this.backend, this.stats, (call) => this.execute(call));
      if (cfg.dynamic_batching.preserve_ordering === true) this.ordered = new OrderedReplies();
    }
    // Validation refuses a cache on a stateful or decoupled model, as Triton does; the runtime never caches one.
    if (o.responseCache && cfg.response_cache?.enable === true && !this.sequences && !this.decoupled)
      this.cache = new ModelCache(o.responseCache.cache, o.name, o.responseCache.version, this.stats);
  }

  get name(): string {
    return this.o.name;
  }
  get pool(): ModelBackend['pool'] {
    return this.backend.pool;
  }
  /** True when the model sends any number of responses per request (`model_transaction_policy.decoupled`). */
  get decoupled(): boolean {
    return this.o.config.model_transaction_policy?.decoupled === true;
  }

  /** Whether each request runs alone, as sent (no batcher, no sequences, no batch dim to add), so ops can share its requests. */
  get fusable(): boolean {
    return (
      this.backend.fusable &&
      !this.sequences &&
      !this.batcher &&
      !this.cache &&
      (this.o.config.max_batch_size ?? 0) <= 0
    );
  }
  get config(): ModelConfig {
    return this.o.config;
  }

  /** Creates the sessions and warms them up; never throws (a failure makes the model 'unavailable'). */
  async load(): Promise<void> {
    const t0 = performance.now();
    try {
      const loaded = await this.pool.start();
      this.provider = loaded.provider;
      this.failures = loaded.failures;
      this.coldStartMs = performance.now() - t0;
      this.firstRunMs = loaded.warmupMs;
      if (loaded.failures.length > 0) {
        this.notices.push(
          `model '${this.o.name}' asked for a GPU (KIND_GPU) but runs on ${loaded.provider.toUpperCase()}: ${loaded.failures.join('; ')}. Install the CUDA provider with ONNXRUNTIME_NODE_INSTALL=cuda12 on a machine with CUDA 12.`,
        );
      } else if (this.o.gpu === 'off' && (this.o.config.instance_group ?? []).some((g) => g.kind === 'KIND_GPU')) {
        this.notices.push(
          `model '${this.o.name}' asked for a GPU (KIND_GPU) but the GPU is turned off for this server: it runs on CPU`,
        );
      }
      if (loaded.warmupError)
        this.notices.push(
          `model '${this.o.name}' warm-up failed (${loaded.warmupError}); its first request may be slow`,
        );
      this.state = 'ready';
    } catch (err) {
      this.state = 'unavailable';
      this.error = messageOf(err);
    }
  }

  /** Runs one request through the model's scheduler. */
  infer(req: InferRequest): Promise<InferResult> {
    try {
      this.assertReady();
      checkInputTypes(this.o.name, this.o.config, req.inputs);
    } catch (err) {
      return Promise.reject(err);
    }
    const cached = this.cache?.answer(req.inputs, this.batches ? firstDim(req.inputs) : 1);
    // A hit is a reply too: with preserve_ordering it waits for the requests before it, as Triton delegates it.
    if (cached?.hit)
      return this.ordered ? this.ordered.track(Promise.resolve(cached.hit)) : Promise.resolve(cached.hit);
    // Promise callbacks, not async functions around awaits: a stream makes this request ~31 times a second,
    // and every async layer is a promise and a microtask hop more before its chunk's answer is back.
    let p: Promise<InferResult>;
    this.inFlight.enter();
    this.accepted++;
    try {
      p = this.route(req);
    } catch (err) {
      p = Promise.reject(err);
    }
    const done = p.then(this.succeeded, this.failed);
    return cached ? done.then(cached.store) : done;
  }

  private readonly succeeded = (r: InferResult): InferResult => {
    this.inFlight.leave();
    this.accepted--;
    this.stats.success();
    return r;
  };

  private readonly failed = (err: unknown): never => {
    this.inFlight.leave();
    this.accepted--;
    this.stats.failure(failureReason(err));
    throw err;
  };

  /**
   * Triton's `nv_inference_pending_request_count`: requests accepted and not yet handed to an instance (waiting in
   * a batcher, behind their sequence's earlier requests, or for a free instance).
   */
  get pendingRequests(): number {
    return Math.max(0, this.accepted - this.pool.executing);
  }

  /** A run that holds this runtime for a step still to come started: a retired runtime stays open for it. */
  runStarted(): void {
    this.inFlight.enter();
  }

  /** A run that `runStarted` ended. */
  runEnded(): void {
    this.inFlight.leave();
  }

  /**
   * Resolves once every run holding it has ended, every request accepted so far has been answered (queued ones
   * included) and the instances are idle (an execute a cancelled request left behind has returned): a retired
   * runtime can close then.
   */
  async onIdle(): Promise<void> {
    await this.inFlight.drained();
    await this.pool.onIdle();
  }

  private assertReady(): void {
    if (this.state !== 'ready')
      throw new EngineError(
        'model-unavailable',
        `model '${this.o.name}' is not available: ${this.error ?? this.state}`,
      );
  }

  private route(req: InferRequest): Promise<InferResult> {
    if (this.sequences) {
      if (!req.sequence)
        throw new EngineError(
          'invalid-input',
          `model '${this.o.name}' is stateful (sequence batching): send a sequence id with START/END flags`,
        );
      return this.sequences
        .infer(req.inputs, req.sequence, req.signal, req.onBound, req.summarize, passThrough(req))
        .then(fromSequence);
    }
    return this.routeUnsequenced(req);
  }

  private async routeUnsequenced(req: InferRequest): Promise<InferResult> {
    if (this.batcher) {
      const queued = this.batcher.enqueue({ req }, req.signal);
      const r = await (this.ordered ? this.ordered.track(queued) : queued);
      if (r instanceof Error) throw r;
      return r;
    }
    const r = await this.execute({
      inputs: req.inputs,
      signal: req.signal,
      canTransfer: req.canTransfer,
      summarize: req.summarize,
      ...passThrough(req),
    });
    return fromReply(r, this.rows(req.inputs));
  }

  /** The inferences a request (or batch) holds: its first dim for a batching model, else one. */
  private rows(inputs: Record<string, Tensor>): number {
    return this.batches ? firstDim(inputs) : 1;
  }

  /**
   * Has the instance this model's next request (`fused`: a fused group's) would go to poll for it for up to `ns`
   * (Placer.spinAhead); false when none was asked: no instance idle, a backend whose instances cannot poll (Python's
   * stubs: engine README), a sequence model (its requests go to the instance their sequence holds) or a plain request
   * that a dynamic batch would hold.
   */
  spinAhead(ns: number, fused: boolean): boolean {
    if (this.sequences || (!fused && this.batcher)) return false;
    return this.pool.spinNext(ns);
  }

  /** Runs a fused group on one instance: its ops and this model's session in one worker request. */
  async runChain(req: ChainRequest): Promise<ChainResult> {
    this.assertReady();
    if (!(this.backend instanceof OnnxBackend))
      throw new EngineError('invalid-graph', `model '${this.o.name}' cannot run fused ops (only ONNX models can)`);
    this.inFlight.enter();
    this.accepted++;
    try {
      const r = await this.backend.runChain(req.feeds, req.steps, req);
      const model = r.stages[req.modelStep];
      if (model) {
        // The worker reads the batch off the first dim; a model that does not batch ran one (fresh objects: set here).
        if (!this.batches && model.batchSize !== undefined) model.batchSize = 1;
        this.stats.execution(model.batchSize ?? 1, r.queueNs, model.computeNs);
      }
      this.stats.success();
      return {
        outputs: r.outputs,
        stages: r.stages,
        queueMs: r.queueNs / 1e6,
        instance: r.instance,
        startNs: r.startNs,
        replyMs: r.replyNs / 1e6,
        arrivedNs: r.arrivedNs,
        spun: r.spun,
        hosted: r.hosted,
      };
    } catch (err) {
      // A hosted request whose producer stopped short never ran: no failure of this model.
      if (req.viaHost && err instanceof EngineError && err.code === 'early-exit') throw err;
      // An op of the group failing is not a failure of this model.
      if (!(err instanceof ChainError) || err.stage === req.modelStep) this.stats.failure(failureReason(err));
      else if (err.stage > req.modelStep) this.stats.success();
      throw err;
    } finally {
      this.inFlight.leave();
      this.accepted--;
    }
  }

  /** One execution on the backend. */
  private async execute(call: BackendCall): Promise<BackendReply> {
    const r = await this.backend.call(call);
    recordExecution(this.stats, this.rows(call.inputs), r);
    return r;
  }

  /** Frees a sequence (cancelled run). */
  releaseSequence(id: number | string): void {
    this.sequences?.release(id);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
