import type { Tensor } from '@ensemble-studio/core';
import { status, type ServerDuplexStream } from '@grpc/grpc-js';
import type { EncodedBytes } from '../../http/classification.ts';
import { OrderedWrites } from '../../http/orderedWrites.ts';
import { runError } from '../../http/routes/kserveRun.ts';
import type { Studio } from '../../http/Studio.ts';
import { inferResponse, type RequestTensors, type WireInferRequest, type WireInferResponse } from '../grpcTensors.ts';
import { wireParameter } from '../params.ts';
import {
  COMPRESSED_WITHOUT_ENCODING,
  CompressedWithoutEncoding,
  decodedRequest,
  UndecodedRequest,
  type InferMessage,
} from '../deferredRequests.ts';
import { grpcError, grpcStatus } from '../status.ts';
import { startTrace, traceRun } from '../../http/tracing.ts';
import { clockPair, nowNs } from '../../trace/requestTrace.ts';
import { openShared, prepareInfer, runPrepared, shapedOutputs, type PreparedInfer } from './infer.ts';
import type { SharedTensors } from '../../http/sharedTensors.ts';

/** One message of the stream: a response, or one request's error (the stream stays open). */
interface StreamMessage {
  error_message: string;
  infer_response: WireInferResponse | null;
}

type Base = PreparedInfer['base'];
const emptyResponse = (base: Base): WireInferResponse => ({
  ...base,
  parameters: {},
  outputs: [],
  raw_output_contents: [],
});

/**
 * `ModelStreamInfer`: every request on the stream runs as it arrives and every response of it is
 * written as the graph produces it, with `triton_final_response` on each (true on the last). A
 * request's error is written as `error_message` and the stream goes on. A gate that stops sends no
 * response; `triton_enable_empty_final_response` asks for one empty final response then. Requests
 * of one sequence run in the order they came; the client going away cancels every run in flight.
 */
export function modelStreamInfer(studio: Studio, call: ServerDuplexStream<WireInferRequest, StreamMessage>): void {
  const aborts = new Set<AbortController>();
  const sequenceTails = new Map<string, Promise<void>>();
  let pending = 0;
  let ended = false;
  let closing = false;
  let cancelled = false;
  let readingHeld = false;
  // grpc-js buffers every response written to a client that does not read (a decoupled model's 250 responses a
  // request: +850 MB in 25 s), so past its high-water mark the client's next requests are not read until it drains.
  // A response classified in the body worker holds back the messages after it: they go out in the order they came.
  const messages = new OrderedWrites<StreamMessage>((m) => {
    if (cancelled || call.write(m) || readingHeld) return;
    readingHeld = true;
    call.pause();
    call.once('drain', () => {
      readingHeld = false;
      call.resume();
    });
  });
  const write = (m: StreamMessage | Promise<StreamMessage>) => messages.add(m);
  const finishIfDone = () => {
    if (!ended || pending > 0 || cancelled || closing) return;
    closing = true;
    void messages.settled().then(() => {
      if (!cancelled) call.end();
    });
  };

  const handle = async (req: WireInferRequest, p: PreparedInfer, arrived: bigint | undefined): Promise<void> => {
    const abort = new AbortController();
    aborts.add(abort);
    let finalSent = false;
    let shared: SharedTensors | undefined;
    // Each response's outputs go into the request's shared memory (in order) before its message is sent.
    let sharedWrites: Promise<unknown> = Promise.resolve();
    // Never throws: it runs inside the engine's response callback. `owned`: the run is over (nothing else reads them).
    const send = (outputs: Record<string, Tensor>, final: boolean, owned = false) => {
      finalSent ||= final;
      const message = (shaped: Record<string, Tensor | EncodedBytes>): StreamMessage => {
        const r = inferResponse(p.base, shaped, p.requested, shared);
        r.parameters.triton_final_response = wireParameter(final);
        return { error_message: '', infer_response: r };
      };
      try {
        const shaped = shapedOutputs(p, outputs, owned);
        if (shared) {
          const into = shared;
          const step = sharedWrites.then(async () => {
            const s = await shaped;
            await into.writeOutputs(s);
            return message(s);
          });
          // The next response's write waits for this one, failed or not; a failure is this response's error message.
          sharedWrites = step.catch(() => undefined);
          write(step.catch((err: unknown) => errorOf(req, err)));
        } else
          write(
            shaped instanceof Promise
              ? shaped.then(message).catch((err: unknown) => errorOf(req, err))
              : message(shaped),
          );
      } catch (err) {
        writeError(req, err);
      }
    };
    // A decoupled graph's final call without outputs only says "no more responses": it is sent (empty)
    // when the client asked for that, below.
    const onResponse = (outputs: Record<string, Tensor>, final: boolean) => {
      if (!(final && p.decoupled && Object.keys(outputs).length === 0)) send(outputs, final);
    };
    // Traced from its message's arrival (read whole, decoded: both read stamps) to its run's end; its responses'
    // sends are not timed.
    const trace = arrived === undefined ? undefined : startTrace(studio, p.served.name);
    trace?.stamp('GRPC_WAITREAD_START', arrived);
    trace?.stamp('GRPC_WAITREAD_END', arrived);
    try {
      shared = await openShared(studio, p);
      const requestStart = clockPair();
      const result = await runPrepared(studio, p, abort.signal, onResponse);
      if (trace) traceRun(studio, trace, { ...p, requestId: p.base.id, requestStart }, result);
      const err = runError(result, p.plainModel);
      if (err) throw err;
      // A graph that is not decoupled answers every request once, also when a condition ended it early.
      if (!p.decoupled && !finalSent) send(result.outputs, true, true);
      if (!finalSent && p.params.triton_enable_empty_final_response === true) send({}, true);
    } catch (err) {
      writeError(req, err);
    } finally {
      trace?.end();
      aborts.delete(abort);
      // The regions are let go once every response has been written to them.
      if (shared) void sharedWrites.then(() => shared!.release());
    }
  };

  const errorOf = (req: Pick<WireInferRequest, 'model_name' | 'model_version' | 'id'>, err: unknown): StreamMessage => {
    const r = emptyResponse({ model_name: req.model_name, model_version: req.model_version, id: req.id });
    r.parameters.triton_final_response = wireParameter(true);
    return { error_message: grpcError(err).details ?? String(err), infer_response: r };
  };
  const writeError = (req: Pick<WireInferRequest, 'model_name' | 'model_version' | 'id'>, err: unknown) =>
    write(errorOf(req, err));

  // Starts a request's run (in arrival order; a sequence's runs one after another).
  const start = (req: WireInferRequest, decoded: Partial<RequestTensors> | undefined) => {
    let run: Promise<void>;
    try {
      const arrived = studio.traces.active ? nowNs() : undefined;
      const p = prepareInfer(studio, req, decoded);
      const key = p.sequence ? `${p.served.name}\u0000${typeof p.sequence.id}:${p.sequence.id}` : undefined;
      const tail = key ? sequenceTails.get(key) : undefined;
      run = tail ? tail.then(() => handle(req, p, arrived)) : handle(req, p, arrived);
      if (key) {
        sequenceTails.set(key, run);
        void run.then(() => {
          if (sequenceTails.get(key) === run) sequenceTails.delete(key);
        });
      }
    } catch (err) {
      writeError(req, err);
      run = Promise.resolve();
    }
    void run.finally(() => {
      pending--;
      finishIfDone();
    });
  };
  // While a large request is decoded in the body worker, the requests after it wait, so they start in order.
  let decoding: Promise<void> | undefined;
  call.on('data', (message: InferMessage) => {
    if (cancelled) return;
    // A frame gRPC itself refuses ends the call, as gRPC's servers end it, not one request of it.
    if (message instanceof CompressedWithoutEncoding) {
      cancel('the gRPC stream sent a message flagged compressed with no encoding');
      return void call.emit('error', grpcStatus(status.INTERNAL, COMPRESSED_WITHOUT_ENCODING));
    }
    pending++;
    if (!decoding && !(message instanceof UndecodedRequest)) return start(message, undefined);
    const step = (decoding ?? Promise.resolve())
      .then(() => decodedRequest(studio, message))
      .then(
        ({ request, ...decoded }) => start(request, decoded),
        (err: unknown) => {
          writeError({ model_name: '', model_version: '', id: '' }, err);
          pending--;
          finishIfDone();
        },
      );
    decoding = step;
    void step.then(() => {
      if (decoding === step) decoding = undefined;
    });
  });
  call.on('end', () => {
    ended = true;
    finishIfDone();
  });
  const cancel = (why: string) => {
    cancelled = true;
    for (const a of aborts) a.abort(new Error(why));
  };
  call.on('cancelled', () => cancel('the gRPC client cancelled the stream'));
  call.on('error', () => undefined);
}
