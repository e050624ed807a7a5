import type { Worker } from 'node:worker_threads';
import type { Tensor } from '@ensemble-studio/core';
import { keyedRecord } from '@ensemble-studio/core';
import { parseClientText, type ParsedText, type TextLimits } from '../ws/parseMessage.ts';
import { BodyChunks, ownedBytes, transferableChunks } from './bodyChunks.ts';
import { ApiError } from './errors.ts';
import { CONTAINER_COST_BYTES, openedContainers } from './jsonContainers.ts';
import type { GraphJob, GraphJobResult } from './graphJobs.ts';
import type { ClassifyJob, EncodedBytes } from './classification.ts';
import type { CheckedModel } from './kserveChecks.ts';
import type { ResponseJob, ResponseOutput } from './responseJobs.ts';
import { parseGenerateBody, parseInferBody, type GenerateRequest, type GenerateTarget } from './kserveBody.ts';
import type { InferRequest } from './kserveTensors.ts';
import type { DecodedInfer, DecodeLimits } from '../grpc/decodeInfer.ts';
import { readRepositoryBody, type RepositoryBody } from './repositoryBody.ts';
import type { ReadRepositoryMessage, RepositoryMethod } from '../grpc/repositoryMessages.ts';
import { startWorker } from '../workerScript.ts';

/** What to parse a body as: a KServe infer or generate body, or a WebSocket text message. */
export type BodyJob =
  | { kind: 'infer'; headerLength: string | undefined; maxTensorElements: number; model: CheckedModel }
  | { kind: 'generate'; target: GenerateTarget; maxTensorElements: number }
  | ({ kind: 'ws' } & TextLimits)
  | { kind: 'join' }
  | ({ kind: 'grpc' } & DecodeLimits)
  | { kind: 'repository' }
  | { kind: 'grpcRepository'; method: RepositoryMethod }
  | GraphJob
  | ResponseJob
  | ClassifyJob;

/** A parse result as it crosses from the worker: tensors as [name, tensor] entries. */
export type WireResult =
  | { kind: 'kserve'; request: Omit<InferRequest | GenerateRequest, 'inputs'>; inputs: [string, Tensor][] }
  | { kind: 'ws'; parsed: ParsedText; decoded?: [string, Tensor][] }
  | { kind: 'joined'; bytes: Uint8Array }
  | ({ kind: 'grpc'; inputs: [string, Tensor][] } & Omit<DecodedInfer, 'inputs'>)
  | { kind: 'repository'; body: RepositoryBody }
  | { kind: 'grpcRepository'; read: ReadRepositoryMessage }
  | { kind: 'graph'; result: GraphJobResult }
  | { kind: 'response'; bytes: Uint8Array }
  | { kind: 'classified'; tensor: EncodedBytes };
/** The worker's answer to one job. */
export type BodyReply =
  | { id: number; ok: true; result: WireResult }
  | { id: number; ok: false; error: { status: number; code: string; message: string } };

/** Bodies up to this size are parsed on the main thread: a worker hop costs more than parsing them. */
export const INLINE_PARSE_BYTES = 1024 * 1024;
/** ...unless they open more JSON objects and arrays than this: those cost as much as INLINE_PARSE_BYTES of numbers. */
const INLINE_PARSE_CONTAINERS = INLINE_PARSE_BYTES / CONTAINER_COST_BYTES;

/** True for a body small enough, in bytes and in objects and arrays, to parse on the main thread. */
function parsesInline(body: Uint8Array): boolean {
  return (
    body.byteLength <= INLINE_PARSE_BYTES && openedContainers(body, INLINE_PARSE_CONTAINERS) <= INLINE_PARSE_CONTAINERS
  );
}
/** Large bodies waiting for the worker at once; more are refused (each holds up to maxBodyBytes). */
const MAX_QUEUED = 4;
/** Heap the worker may use: a hostile body that needs more fails alone instead of growing the server. */
const WORKER_HEAP_MB = 2048;

const ENTRY = new URL('./bodyWorker.ts', import.meta.url);

/**
 * The distinct buffers that JSON outputs span whole, but none that `keep` uses (a copy router can hand one tensor to
 * two outputs, one of them binary).
 */
function wholeBuffers(outputs: ResponseOutput[], keep: Tensor[]): ArrayBuffer[] {
  const kept = new Set(keep.map((t) => (Array.isArray(t.data) ? undefined : t.data.buffer)));
  const out = new Set<ArrayBuffer>();
  for (const o of outputs) {
    if (!Array.isArray(o)) continue;
    // A classification's bytes came from the worker for this response alone.
    if ('raw' in o[1]) out.add(o[1].raw.buffer as ArrayBuffer);
    if ('raw' in o[1] || Array.isArray(o[1].data)) continue;
    const v = o[1].data as Uint8Array;
    if (v.byteOffset !== 0 || v.byteLength !== v.buffer.byteLength || !(v.buffer instanceof ArrayBuffer)) continue;
    if (!kept.has(v.buffer)) out.add(v.buffer);
  }
  return [...out];
}

const entriesToRecord = (entries: [string, Tensor][]) => {
  const out = keyedRecord<Tensor>();
  for (const [name, t] of entries) out[name] = t;
  return out;
};

/**
 * Parses request bodies and WebSocket messages: small ones inline, large ones (over INLINE_PARSE_BYTES, or
 * opening over INLINE_PARSE_CONTAINERS objects and arrays) in one worker thread, one after another, so a 60 MB JSON body costs the main
 * thread a transfer instead of seconds of JSON.parse during which no other client is answered.
 * @example const req = await parser.kserve(body, { kind: 'infer', headerLength: undefined, maxTensorElements, model })
 */
export class BodyParser {
  private worker: Promise<Worker> | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: WireResult) => void; reject: (e: Error) => void }>();

  /** A KServe infer or generate body. @throws ApiError naming what is wrong with it. */
  async kserve<
    J extends Exclude<
      BodyJob,
      { kind: 'ws' | 'join' | 'grpc' | 'repository' | 'grpcRepository' } | GraphJob | ResponseJob | ClassifyJob
    >,
  >(body: Uint8Array | BodyChunks, job: J): Promise<J extends { kind: 'infer' } ? InferRequest : GenerateRequest> {
    type Out = J extends { kind: 'infer' } ? InferRequest : GenerateRequest;
    if (!(body instanceof BodyChunks) && parsesInline(body)) {
      return (
        job.kind === 'infer'
          ? parseInferBody(body, job.headerLength, job.maxTensorElements, job.model)
          : parseGenerateBody(body, job.target, job.maxTensorElements)
      ) as Out;
    }
    const r = await this.post(body, job);
    if (r.kind !== 'kserve')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return { ...r.request, inputs: entriesToRecord(r.inputs) } as Out;
  }

  /**
   * A ModelInferRequest too large to decode on the main thread (grpc-js handed over its bytes), decoded in the
   * worker with its tensors (decodeInfer.ts). @throws ApiError naming what is wrong with it.
   */
  async grpcInfer(bytes: Uint8Array, limits: DecodeLimits): Promise<DecodedInfer> {
    const r = await this.post(bytes, { kind: 'grpc', ...limits });
    if (r.kind !== 'grpc')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    const { kind: _kind, inputs, ...rest } = r;
    return { ...rest, inputs: entriesToRecord(inputs) };
  }

  /** A repository request's body (index, load, unload): the fields those endpoints read. @throws ApiError when not JSON. */
  async repository(body: Uint8Array | BodyChunks): Promise<RepositoryBody> {
    if (!(body instanceof BodyChunks) && parsesInline(body)) return readRepositoryBody(body);
    const r = await this.post(body, { kind: 'repository' });
    if (r.kind !== 'repository')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return r.body;
  }

  /** A large gRPC repository load or unload, decoded and checked in the worker (repositoryMessages.ts). */
  async grpcRepository(method: RepositoryMethod, bytes: Uint8Array): Promise<ReadRepositoryMessage> {
    const r = await this.post(bytes, { kind: 'grpcRepository', method });
    if (r.kind !== 'grpcRepository')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return r.read;
  }

  /**
   * A WebSocket text message, whole or as the pieces it arrived in (a large one: its UTF-8 is checked in the worker,
   * `invalid-utf8` when it is not); never throws for the message's content (the result says what is wrong).
   */
  async wsText(data: Uint8Array | BodyChunks, limits: TextLimits): Promise<ParsedText> {
    if (!(data instanceof BodyChunks) && parsesInline(data)) return parseClientText(data, limits);
    const { maxTensorElements, maxGraphNodes, maxGraphEdges } = limits;
    const r = await this.post(data, { kind: 'ws', maxTensorElements, maxGraphNodes, maxGraphEdges });
    if (r.kind !== 'ws') throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return r.parsed.ok ? { ...r.parsed, decoded: entriesToRecord(r.decoded ?? []) } : r.parsed;
  }

  /** A large binary message's pieces joined into one buffer in the worker, whose fresh pages the main thread never touches. */
  async join(pieces: BodyChunks): Promise<Uint8Array> {
    const r = await this.post(pieces, { kind: 'join' });
    if (r.kind !== 'joined')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return r.bytes;
  }

  /** A graph compiled (and, for an export, zipped) in the worker (graphJobs.ts). @throws ApiError as the body jobs do. */
  async graph(job: GraphJob): Promise<GraphJobResult> {
    const r = await this.post(new Uint8Array(0), job);
    if (r.kind !== 'graph')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return r.result;
  }

  /**
   * A large infer response written as JSON in the worker (responseJobs.ts). The outputs' buffers are handed over when
   * each spans its whole buffer (the run is over: nothing reads them again), else copied; `keep`'s buffers (binary
   * outputs still to be sent from here) are always copied.
   */
  async response(
    form: ResponseJob['form'],
    head: Record<string, unknown>,
    outputs: ResponseOutput[],
    keep: Tensor[],
  ): Promise<Uint8Array> {
    const job: ResponseJob = { kind: 'response', form, head, outputs };
    const r = await this.post(new Uint8Array(0), job, wholeBuffers(outputs, keep));
    if (r.kind !== 'response')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return r.bytes;
  }

  /**
   * An output classified in the worker (classification.ts), its classes as wire bytes. The tensor's buffer is handed
   * over: the caller passes one nothing else reads. @throws ApiError for what Triton refuses to classify.
   */
  async classify(job: ClassifyJob): Promise<EncodedBytes> {
    const data = job.tensor.data as Float32Array;
    const r = await this.post(new Uint8Array(0), job, [data.buffer as ArrayBuffer]);
    if (r.kind !== 'classified')
      throw new ApiError(500, 'internal', 'the body parser answered with the wrong kind of result');
    return r.tensor;
  }

  /** Stops the worker; requests waiting on it fail. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await (await w)?.terminate();
  }

  private post(body: Uint8Array | BodyChunks, job: BodyJob, alsoTransfer: ArrayBuffer[] = []): Promise<WireResult> {
    // A response is written whatever the queue: its run is done and its memory already held (maxConcurrentRuns bounds it).
    if (job.kind !== 'response' && job.kind !== 'classify' && this.pending.size >= MAX_QUEUED) {
      return Promise.reject(
        new ApiError(
          503,
          'limit',
          `too many large request bodies are being parsed (at most ${MAX_QUEUED} at once); try again shortly`,
        ),
      );
    }
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    // The body is handed over, not copied, when it owns its whole buffer (large bodies and their chunks do).
    const parts = body instanceof BodyChunks ? transferableChunks(body) : [ownedBytes(body)];
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.then(
        (w) =>
          w.postMessage({ ...job, id, body: parts }, [...parts.map((p) => p.buffer as ArrayBuffer), ...alsoTransfer]),
        (err: Error) => {
          this.pending.delete(id);
          reject(new ApiError(500, 'internal', `the body parser did not start: ${err.message}`));
        },
      );
    });
  }

  private start(): Promise<Worker> {
    const started: Promise<Worker> = startWorker(ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    }).then((worker) => this.watch(started, worker));
    this.worker = started;
    return started;
  }

  /** Routes `worker`'s replies to their requests, and fails them all when it stops (`started` is its promise). */
  private watch(started: Promise<Worker>, worker: Worker): Worker {
    worker.unref();
    worker.on('message', (reply: BodyReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.result);
      else p.reject(new ApiError(reply.error.status, reply.error.code, reply.error.message));
    });
    const fail = (err: Error) => {
      if (this.worker === started) this.worker = undefined;
      const oom = (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY';
      const apiErr = oom
        ? new ApiError(
            413,
            'too-large',
            `the request needs more than ${WORKER_HEAP_MB} MB of memory to parse; send large tensors as binary data`,
          )
        : new ApiError(500, 'internal', `the body parser stopped: ${err.message}`);
      for (const p of this.pending.values()) p.reject(apiErr);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.pending.size > 0) fail(new Error(`exited with code ${code}`));
      else if (this.worker === started) this.worker = undefined;
    });
    return worker;
  }
}
