import type { GraphDoc, NodeTiming, Tensor } from '@ensemble-studio/core';
import { tensorRecord } from './traceTensors.ts';
import { TENSORS, TIMESTAMPS, type TraceSetting } from './traceSetting.ts';

// One sampled request's trace, written as Triton's trace file holds it (server:docs/user_guide/trace.md): the
// frontend's timestamps (HTTP_*, GRPC_*), the model's record and its activities (REQUEST_START … REQUEST_END), and for
// a graph (Triton's ensemble) one child trace per model step, its `parent_id` the request's trace. Times are the
// monotonic clock's nanoseconds, as Triton's steady clock.

/** Now on the monotonic clock, in ns. */
export const nowNs = (): bigint => process.hrtime.bigint();

/** A moment on both clocks: the monotonic ns the trace writes, and `performance.now()` ms the engine's timings use. */
export interface ClockPair {
  ns: bigint;
  ms: number;
}

/** Now on both clocks (read together: their offset is taken per request, not once for the process). */
export const clockPair = (): ClockPair => ({ ns: nowNs(), ms: performance.now() });

/** What the request ran, for its trace: the model it named, and the run the engine made of it. */
export interface TracedRun {
  /** The model the request named (a graph served as a model is Triton's ensemble). */
  model: string;
  version: number;
  requestId?: string;
  /** When the request was handed to the engine, on both clocks. */
  requestStart: ClockPair;
  graph: GraphDoc;
  /** When the graph's run started (`performance.now()` ms) and each node's timing relative to it. */
  startedAtMs: number;
  timings: readonly NodeTiming[];
  /** The graph is a repository model run on its own: its one model node's timing is the request's. */
  plainModel: boolean;
  inputs: Record<string, Tensor>;
  outputs: Record<string, Tensor>;
  /** A model's latest version (its steps' `model_version`). */
  versionOf: (model: string) => number;
}

export class RequestTrace {
  /** This trace's records, in order; its children's, after. */
  private readonly records: string[] = [];
  private readonly children: string[] = [];
  private ended = false;

  constructor(
    private readonly setting: TraceSetting,
    readonly id: number,
    private readonly nextId: () => number,
  ) {}

  private get timestamps(): boolean {
    return (this.setting.values.level & TIMESTAMPS) !== 0;
  }

  /** A frontend timestamp (HTTP_RECV_START, GRPC_SEND_END, …), now unless given. */
  stamp(name: string, ns: bigint = nowNs()): void {
    if (this.timestamps) this.records.push(timestamp(this.id, name, ns));
  }

  /** The model's record and activities from the finished run (for a graph, its steps' child traces too). */
  run(r: TracedRun): void {
    const endNs = nowNs();
    const at = r.requestStart;
    const perfNs = (ms: number): bigint => at.ns + BigInt(Math.round((ms - at.ms) * 1e6));
    const steps = modelSteps(r.graph);
    const own = r.plainModel ? r.timings.find((t) => steps.has(t.nodeId)) : undefined;
    if (this.timestamps) {
      this.records.push(modelRecord(this.id, r.model, r.version, r.requestId, undefined));
      this.stamp('REQUEST_START', at.ns);
      this.stamp('QUEUE_START', own ? perfNs(r.startedAtMs + own.startMs) : perfNs(r.startedAtMs));
    }
    this.tensors('TENSOR_QUEUE_INPUT', r.inputs);
    if (own) this.compute(this.id, perfNs, r.startedAtMs, own);
    this.tensors('TENSOR_BACKEND_OUTPUT', r.outputs);
    this.stamp('INFER_RESPONSE_COMPLETE', endNs);
    this.stamp('REQUEST_END', endNs);
    if (own || !this.timestamps) return;
    for (const t of [...r.timings].sort((a, b) => a.startMs - b.startMs)) {
      const model = steps.get(t.nodeId);
      if (model === undefined) continue;
      const id = this.nextId();
      const start = perfNs(r.startedAtMs + t.startMs);
      const end = perfNs(r.startedAtMs + t.endMs);
      this.children.push(
        modelRecord(id, model, r.versionOf(model), undefined, this.id),
        timestamp(id, 'REQUEST_START', start),
        timestamp(id, 'QUEUE_START', start),
      );
      this.compute(id, perfNs, r.startedAtMs, t);
      this.children.push(timestamp(id, 'REQUEST_END', end));
    }
  }

  /** Hands the finished trace to its setting, which writes it with the others (once; a trace with no records counts). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.setting.write([...this.records, ...this.children].join(','));
  }

  /**
   * A model request's compute, as Triton's backends report it: from when an instance took it (COMPUTE_START) to its
   * result back on the server's thread (COMPUTE_END); the model itself (an ONNX session run, a Python `execute`)
   * between COMPUTE_INPUT_END and COMPUTE_OUTPUT_START (the hand-over to its thread or process and back on either
   * side; a fused step's Input also holds the ops fused before it). Without stamps, the model's own time ending with
   * its result.
   */
  private compute(id: number, perfNs: (ms: number) => bigint, startedAtMs: number, t: NodeTiming): void {
    if (!this.timestamps) return;
    const into = id === this.id ? this.records : this.children;
    const at = (ms: number) => perfNs(startedAtMs + Math.min(Math.max(ms, t.startMs), t.endMs));
    into.push(timestamp(id, 'COMPUTE_START', at(t.computeStartMs ?? t.endMs - t.computeMs)));
    if (t.inferStartMs !== undefined && t.inferEndMs !== undefined) {
      into.push(timestamp(id, 'COMPUTE_INPUT_END', at(t.inferStartMs)));
      into.push(timestamp(id, 'COMPUTE_OUTPUT_START', at(t.inferEndMs)));
    }
    into.push(timestamp(id, 'COMPUTE_END', at(t.endMs)));
  }

  private tensors(activity: string, tensors: Record<string, Tensor>): void {
    if ((this.setting.values.level & TENSORS) === 0) return;
    for (const [name, t] of Object.entries(tensors)) this.records.push(tensorRecord(this.id, activity, name, t));
  }
}

function timestamp(id: number, name: string, ns: bigint): string {
  return `{"id":${id},"timestamps":[{"name":"${name}","ns":${ns}}]}`;
}

function modelRecord(id: number, model: string, version: number, requestId?: string, parent?: number): string {
  const head = `{"id":${id},"model_name":${JSON.stringify(model)},"model_version":${version}`;
  return `${head}${requestId ? `,"request_id":${JSON.stringify(requestId)}` : ''}${parent ? `,"parent_id":${parent}` : ''}}`;
}

/** The graph's model nodes: node id → the repository model it runs. */
function modelSteps(graph: GraphDoc): Map<string, string> {
  const steps = new Map<string, string>();
  for (const n of graph.nodes) {
    const model = (n.params as { model?: unknown } | undefined)?.model;
    if (n.kind === 'model' && typeof model === 'string') steps.set(n.id, model);
  }
  return steps;
}
