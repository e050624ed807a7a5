// One engine worker thread: hosts one onnxruntime session (a model instance) or the built-in ops.
// session.run() blocks the thread it runs on, so it must never run on the main thread.
import { readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import type { Tensor } from '@ensemble-studio/core';
import { createOpContext } from '../../ops/opContext.ts';
import { opImpl, type OpContext } from '../../ops/registry.ts';
import { fromOrtType, ORT_TYPES } from './ortTypes.ts';
import { ownsWholeBuffer, copyData } from '../../tensorTransfer.ts';
import { freeNow } from './freeBuffers.ts';
import { checkOutputLimits } from './outputLimits.ts';
import { SessionSlot } from './sessionSlot.ts';
import { SizeGuard } from './sizeGuard.ts';
import { GuestModels, nextFeeds, type HostedModel } from './guestModels.ts';
import { runChain, StageFailure, summarizeAll } from './workerChain.ts';
import { StepsKept } from './chainStepsWire.ts';
import type { FromWorker, HostNext, LoadSpec, PortableTensor, StageResult, ToWorker } from './workerProtocol.ts';

const port = parentPort;
if (!port) throw new Error('engine worker must run in a worker thread');

/** Sets this thread's nice value (Linux: a thread id is a valid `setpriority` target); elsewhere a no-op. */
function setNice(nice: number): void {
  if (nice === 0) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or not permitted: the worker keeps the default priority.
  }
}

const slot = new SessionSlot();
/** The chains' steps this worker was sent, by id (chainStepsWire.ts). */
const kept = new StepsKept();
let opContext: OpContext | undefined;
let repoDir = '';
let modelSpec: Extract<LoadSpec, { kind: 'model' }> | undefined;

function send(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer);
}

function toOrt(t: PortableTensor): ort.Tensor {
  const type = ORT_TYPES[t.datatype];
  if (!type) throw new Error(`data type ${t.datatype} is not supported by onnxruntime`);
  return new ort.Tensor(type as 'float32', t.data as Float32Array, t.shape);
}

/** Converts outputs to portable tensors, collecting their buffers for the transfer list. */
function fromOrt(
  outputs: Record<string, ort.Tensor | Tensor>,
  transfer: ArrayBuffer[],
): Record<string, PortableTensor> {
  const out: Record<string, PortableTensor> = {};
  for (const [name, t] of Object.entries(outputs)) {
    const datatype = 'type' in t ? fromOrtType(t.type) : t.datatype;
    if (!datatype) throw new Error(`output '${name}' has unsupported type`);
    const shape = 'dims' in t ? [...t.dims] : [...t.shape];
    // A view into a buffer shared with other outputs cannot be transferred alone: copy it.
    const data = (
      ownsWholeBuffer(t.data as Float32Array) || Array.isArray(t.data) ? t.data : copyData(t.data as Float32Array)
    ) as PortableTensor['data'];
    if (!Array.isArray(data) && !transfer.includes((data as Float32Array).buffer as ArrayBuffer))
      transfer.push((data as Float32Array).buffer as ArrayBuffer);
    out[name] = { datatype, shape, data };
  }
  return out;
}

/**
 * Sends a result; with `summarize`, each output is summarised here, off the main thread. Summaries of
 * large tensors cost real time on the run's critical path (bench/README.md), so runs nobody watches skip them.
 */
function sendResult(
  id: number,
  outputs: Record<string, PortableTensor>,
  computeNs: number,
  transfer: ArrayBuffer[],
  summarize: boolean,
  stages?: StageResult[],
  inferStartNs?: number,
  arrivedNs?: number,
  hosted?: boolean,
): void {
  const summaries = !summarize ? {} : stages ? stages[stages.length - 1]!.summaries : summarizeAll(outputs);
  const result: Extract<FromWorker, { type: 'result' }> = { type: 'result', id, outputs, computeNs, summaries };
  if (stages) result.stages = stages;
  if (inferStartNs !== undefined) result.inferStartNs = inferStartNs;
  if (arrivedNs !== undefined) result.arrivedNs = arrivedNs;
  if (hosted) result.hosted = true;
  if (stages) result.sentNs = Number(process.hrtime.bigint());
  send(result, transfer);
}

async function createSession(
  spec: Extract<LoadSpec, { kind: 'model' }>,
): Promise<{ s: ort.InferenceSession; provider: string; failures: string[] }> {
  const failures: string[] = [];
  for (const provider of spec.providers) {
    const options: ort.InferenceSession.SessionOptions = {
      executionProviders: [provider],
      intraOpNumThreads: spec.intraOpThreads,
      interOpNumThreads: 1,
    };
    // Spin-waiting with more than one intra-op thread makes latency bimodal: turn it off.
    if (spec.intraOpThreads > 1) options.extra = { session: { intra_op: { allow_spinning: '0' } } };
    try {
      return { s: await ort.InferenceSession.create(spec.path, options), provider, failures };
    } catch (err) {
      failures.push(`${provider}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  throw new Error(`no execution provider could load ${spec.model}: ${failures.join('; ')}`);
}

/**
 * Holds a session's outputs to the server's limits. onnxruntime keeps what a run allocated in the session's arena
 * for the next run, so an output refused here would hold its memory (gigabytes, for a model whose output size an
 * input chooses) for as long as the instance lives: the session is recreated before the refusal is answered, and
 * the instance's next request finds a fresh one (one already in this worker's port waits for it).
 */
async function checkOutputs(model: HostedModel, outputs: Record<string, ort.Tensor>): Promise<void> {
  try {
    checkOutputLimits(outputs, model.spec.model, model.spec.limits);
  } catch (err) {
    freeNow(Object.values(outputs)); // an idle worker may not collect garbage for a long time
    await model.slot.renew(async () => (await createSession(model.spec)).s);
    throw err;
  }
}

/** Has `target` refuse a run whose values would have the model make a tensor over the limits, before it is made. */
async function guard(target: SessionSlot, spec: Extract<LoadSpec, { kind: 'model' }>): Promise<void> {
  if (!spec.limits) return;
  const guard = await SizeGuard.create(readFileSync(spec.path), spec.model, spec.limits, (bytes) =>
    ort.InferenceSession.create(bytes, { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1 }),
  ).catch(() => undefined); // a model this cannot read or cut down keeps the check after the run
  target.guard = guard && ((feeds) => guard.check(feeds));
}

const guests = new GuestModels(async (spec) => {
  const guest = new SessionSlot();
  guest.set((await createSession(spec)).s);
  await guard(guest, spec);
  return guest;
});

async function load(spec: LoadSpec): Promise<void> {
  if (spec.kind === 'model') {
    setNice(spec.nice);
    repoDir = spec.repoDir;
    modelSpec = spec;
  }
  if (spec.kind === 'ops') {
    opContext = createOpContext(spec.repoDir);
    send({ type: 'loaded', provider: 'cpu', inputNames: [], outputNames: [], failures: [], loadMs: 0 });
    return;
  }
  const t0 = performance.now();
  const { s, provider, failures } = await createSession(spec);
  slot.set(s);
  await guard(slot, spec);
  const loadMs = performance.now() - t0;
  let warmupMs: number | undefined;
  let warmupError: string | undefined;
  if (spec.warmup.length > 0) {
    const t1 = performance.now();
    try {
      for (const feeds of spec.warmup)
        await s.run(Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, toOrt(v)])));
      warmupMs = performance.now() - t1;
    } catch (err) {
      warmupError = err instanceof Error ? err.message.split('\n')[0] : String(err);
    }
  }
  send({
    type: 'loaded',
    provider,
    inputNames: [...s.inputNames],
    outputNames: [...s.outputNames],
    failures,
    loadMs,
    warmupMs,
    warmupError,
  });
}

async function run(msg: Extract<ToWorker, { type: 'run' }>, arrivedNs: number): Promise<void> {
  const feeds = Object.fromEntries(Object.entries(msg.feeds).map(([k, v]) => [k, toOrt(v)]));
  const t0 = process.hrtime.bigint();
  const outputs = await slot.run(feeds);
  const computeNs = Number(process.hrtime.bigint() - t0);
  await checkOutputs({ slot, spec: modelSpec! }, outputs);
  const transfer: ArrayBuffer[] = [];
  sendResult(msg.id, fromOrt(outputs, transfer), computeNs, transfer, msg.summarize, undefined, Number(t0), arrivedNs);
  // The reply moved or copied what it sends, and this thread keeps nothing of a request: free the rest now.
  freeNow([...Object.values(msg.feeds), ...Object.values(outputs)]);
}

function runOp(msg: Extract<ToWorker, { type: 'op' }>): void {
  const impl = opImpl(msg.op);
  if (!impl || !opContext) throw new Error(`unknown op '${msg.op}'`);
  const t0 = process.hrtime.bigint();
  const outputs = impl.run(msg.inputs, msg.values, opContext);
  const computeNs = Number(process.hrtime.bigint() - t0);
  const transfer: ArrayBuffer[] = [];
  sendResult(msg.id, fromOrt(outputs, transfer), computeNs, transfer, msg.summarize);
  freeNow([...Object.values(msg.inputs), ...Object.values(outputs)]);
}

/** Wakes the main thread's CPU ahead of a reply (Placer.wakeAhead); the message asks nothing. */
function wakeMain(): void {
  send({ type: 'soon' });
}

/**
 * Runs a fused request on `model` (this worker's own, or a guest's for a request it hosts) and replies; with `next`,
 * a chain that ran to its end goes on to that request (its reader's) here once its reply is posted.
 */
async function chain(
  msg: Extract<ToWorker, { type: 'chain' }>,
  arrivedNs: number,
  model: HostedModel | undefined = modelSpec && { slot, spec: modelSpec },
): Promise<void> {
  try {
    const steps = msg.steps!;
    const r = await runChain(steps, msg.feeds, msg.summarize, {
      session: model?.slot,
      toOrt,
      checkOutputs: (outputs) => checkOutputs(model!, outputs),
      opContext: () => (opContext ??= createOpContext(repoDir)),
      soon: msg.wakeAhead ? wakeMain : undefined,
    });
    const ran = r.stages.length === steps.length && r.stages[r.stages.length - 1]!.exit === undefined;
    const next = msg.next && ran ? hostable(msg.next, r.outputs) : undefined;
    const transfer: ArrayBuffer[] = [];
    for (const s of r.stages) if (s.outputs) s.outputs = fromOrt(s.outputs, transfer);
    const computeNs = r.stages.reduce((n, s) => n + s.computeNs, 0);
    sendResult(
      msg.id,
      fromOrt(r.outputs, transfer),
      computeNs,
      transfer,
      msg.summarize,
      r.stages,
      undefined,
      arrivedNs,
      next !== undefined,
    );
    freeNow([...Object.values(msg.feeds), ...r.produced.flatMap((outputs) => Object.values(outputs))]);
    const hostedId = msg.next?.request.id;
    if (next)
      await chain({ ...msg.next!.request, feeds: next.feeds }, Number(process.hrtime.bigint()), next.model).catch(
        (err: unknown) => fail(hostedId!, err),
      );
  } catch (err) {
    if (!(err instanceof StageFailure)) throw err;
    send({ type: 'error', id: msg.id, message: err.message, stage: err.stage, stages: err.stages });
  }
}

/** The request a chain hosts next (`HostNext`), with its feeds copied from the chain's outputs, when it can run here. */
function hostable(
  next: HostNext,
  outputs: Record<string, Tensor>,
): { model: HostedModel; feeds: Record<string, PortableTensor> } | undefined {
  const model = guests.get(next.guest);
  const feeds = model && nextFeeds(next, outputs);
  return feeds && { model: model!, feeds };
}

function loadGuest(msg: Extract<ToWorker, { type: 'guest' }>): void {
  guests.load(msg.key, msg.spec).then(
    () => send({ type: 'guest-loaded', key: msg.key }),
    (err: unknown) =>
      send({ type: 'guest-loaded', key: msg.key, message: err instanceof Error ? err.message : String(err) }),
  );
}

/**
 * Takes what is posted to the port for up to `ns` (Placer.spinAhead), handling the first message that comes: a
 * request posted meanwhile is taken at once, where a sleeping thread's CPU would first have to be woken.
 */
function spin(ns: number): void {
  const until = performance.now() + ns / 1e6;
  while (performance.now() < until) {
    const m = receiveMessageOnPort(port!);
    if (m) return onMessage(m.message as ToWorker);
  }
}

function onMessage(msg: ToWorker): void {
  if (msg.type === 'spin') return spin(msg.ns);
  if (msg.type === 'guest') return loadGuest(msg);
  if (msg.type === 'drop-guest') return guests.drop(msg.key);
  if (msg.type === 'crash') process.exit(70);
  if (msg.type === 'stop') process.exit(0);
  if (msg.type === 'load') {
    load(msg.spec).catch((err: unknown) =>
      send({ type: 'load-failed', message: err instanceof Error ? err.message : String(err) }),
    );
    return;
  }
  // Anonymous callbacks, not a named closure per request (tsx would define its name each time).
  try {
    if (msg.type === 'run') run(msg, Number(process.hrtime.bigint())).catch((err: unknown) => fail(msg.id, err));
    else if (msg.type === 'chain') {
      const arrivedNs = Number(process.hrtime.bigint());
      // Taken in the order the messages came, before anything awaits: the set of kept steps is the main thread's.
      kept.take(msg);
      chain(msg, arrivedNs).catch((err: unknown) => fail(msg.id, err));
    } else runOp(msg);
  } catch (err) {
    fail(msg.id, err);
  }
}
port.on('message', onMessage);

function fail(id: number, err: unknown): void {
  send({ type: 'error', id, message: err instanceof Error ? err.message : String(err) });
}
