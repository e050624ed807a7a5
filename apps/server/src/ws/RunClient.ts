import { randomUUID } from 'node:crypto';
import type { ClientMessage, ServerMessage, Tensor } from '@ensemble-studio/core';
import type { WebSocket } from 'ws';
import { RunCancel } from '../engine/index.ts';
import { ApiError, capMessage } from '../http/errors.ts';
import { limitMessage } from '../http/limits.ts';
import type { Studio } from '../http/Studio.ts';
import { BodyChunks } from '../http/bodyChunks.ts';
import { INLINE_PARSE_BYTES } from '../http/bodyParser.ts';
import { ClientSender } from './ClientSender.ts';
import { INVALID_UTF8, parseClientText, type ParsedText } from './parseMessage.ts';
import { StreamManager } from './StreamManager.ts';
import type { RunOptions, RunResult, StreamClient } from './streamClient.ts';
import { addFrame, pendingBinary, refOf, type MessageWithInputs, type PendingBinary } from './pendingBinary.ts';
import { eventForClient, finalMessage, isTerminal } from './runReplies.ts';
import { decodeWireTensors } from './wireTensors.ts';

/** Largest `timeoutMs` a timer can hold (2^31 - 1 ms, about 24.8 days); Node re-arms longer ones every millisecond. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * One WebSocket client: validates its messages, runs graphs for it (with per-client and global run
 * limits), forwards engine events through backpressure, cancels everything when it goes away.
 */
export class RunClient implements StreamClient {
  readonly sender: ClientSender;
  private readonly runs = new Map<string, RunCancel>();
  private readonly streams: StreamManager;
  private pending: PendingBinary | undefined;
  /** Set while a large message is parsed off the main thread: later messages queue behind it. */
  private inbox: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly ws: WebSocket,
    readonly studio: Studio,
  ) {
    this.sender = new ClientSender(ws, studio.limits.maxBufferedBytes);
    this.streams = new StreamManager(this);
  }

  /** Sends an `error` message (the connection carries on). */
  error(code: string, message: string, ref?: string): void {
    this.sender.send({
      type: 'error',
      ...(ref === undefined ? {} : { ref: ref.slice(0, 256) }),
      error: { code, message: capMessage(message) },
    });
  }

  /**
   * Handles one incoming message: JSON text, or a binary frame a pending message waits for. A large one comes as the
   * pieces it arrived in, joined (and parsed, for text) in the body worker.
   */
  onMessage(data: Buffer | BodyChunks, isBinary: boolean): void {
    const max = this.studio.limits.maxWsMessageBytes;
    if (data.byteLength > max)
      return this.error('limit', limitMessage(`message of ${data.byteLength} bytes`, 'maxWsMessageBytes', max));
    // A large message is parsed or joined off the main thread; what arrives meanwhile waits behind it, in order.
    if (this.inbox || data instanceof BodyChunks || (!isBinary && data.byteLength > INLINE_PARSE_BYTES)) {
      const next = (this.inbox ?? Promise.resolve())
        .then(() => this.receive(data, isBinary))
        .catch((err: unknown) => this.error(err instanceof ApiError ? err.code : 'internal', (err as Error).message));
      this.inbox = next;
      void next.finally(() => {
        if (this.inbox === next) this.inbox = undefined;
      });
      return;
    }
    void this.receive(data, isBinary);
  }

  private receive(data: Buffer | BodyChunks, isBinary: boolean): Promise<void> | void {
    if (this.closed) return;
    if (isBinary)
      return data instanceof BodyChunks
        ? this.studio.bodies.join(data).then((bytes) => void (this.closed || this.onBinary(bytes)))
        : this.onBinary(data);
    if (this.pending) {
      this.error(
        'missing-binary',
        `expected ${this.pending.needed - this.pending.frames.length} more binary frame(s) before the next message`,
        refOf(this.pending.msg),
      );
      this.pending = undefined;
    }
    const limits = this.studio.limits;
    if (!(data instanceof BodyChunks) && data.byteLength <= INLINE_PARSE_BYTES)
      return this.onText(parseClientText(data, limits), data.byteLength);
    return this.studio.bodies.wsText(data, limits).then((parsed) => this.onText(parsed, data.byteLength));
  }

  private onText(parsed: ParsedText, bytes: number): void {
    if (this.closed) return;
    if (!parsed.ok && parsed.code === INVALID_UTF8) return this.ws.close(1007, parsed.message);
    if (!parsed.ok) return this.error(parsed.code, parsed.message, parsed.ref);
    const msg = parsed.message;
    let pending: PendingBinary | undefined;
    try {
      pending = pendingBinary(msg, bytes, parsed.decoded);
    } catch (err) {
      return this.error('bad-message', (err as Error).message, refOf(msg as MessageWithInputs));
    }
    if (!pending) return this.dispatch(msg, [], parsed.decoded);
    this.pending = pending;
  }

  private onBinary(data: Uint8Array): void {
    const p = this.pending;
    if (!p)
      return this.error('unexpected-binary', 'binary frame without a message announcing it (inputs with "binary": i)');
    const refused = addFrame(p, data, this.studio.limits.maxWsMessageBytes);
    if (refused) {
      this.pending = undefined;
      return this.error(refused.code, refused.message, refOf(p.msg));
    }
    if (p.frames.length < p.needed) return;
    this.pending = undefined;
    this.dispatch(p.msg, p.frames, p.decoded);
  }

  private dispatch(msg: ClientMessage, frames: Uint8Array[], decoded: Record<string, Tensor>): void {
    switch (msg.type) {
      case 'ping':
        return this.sender.send({ type: 'pong', at: msg.at });
      case 'run.cancel':
        return this.cancel(msg.runId);
      case 'run.start':
        return this.start(msg, frames, decoded);
      case 'stream.open':
        return this.streams.open(msg);
      case 'stream.append':
        return this.streams.append(msg, frames, decoded);
      case 'stream.end':
        return this.streams.end(msg.streamId);
    }
  }

  private start(
    msg: Extract<ClientMessage, { type: 'run.start' }>,
    frames: Uint8Array[],
    decoded: Record<string, Tensor>,
  ): void {
    if (msg.timeoutMs !== undefined && msg.timeoutMs > MAX_TIMEOUT_MS) {
      return this.error(
        'bad-message',
        `timeoutMs ${msg.timeoutMs} is over the largest timer, ${MAX_TIMEOUT_MS} ms`,
        msg.requestId,
      );
    }
    try {
      const graph = this.studio.resolveGraph(msg.graph);
      const inputs = decodeWireTensors(msg.inputs, frames, decoded);
      void this.run({
        graph,
        inputs,
        requestId: msg.requestId,
        ...(msg.timeoutMs === undefined ? {} : { timeoutMs: msg.timeoutMs }),
        ...(msg.exported ? { exported: true } : {}),
      }).catch(() => undefined);
    } catch (err) {
      this.error(err instanceof ApiError ? err.code : 'bad-input', (err as Error).message, msg.requestId);
    }
  }

  private cancel(runId: string): void {
    const run = this.runs.get(runId);
    if (!run) return this.error('unknown-run', `no run "${runId.slice(0, 128)}" in flight on this connection`, runId);
    run.abort('cancelled by the client');
  }

  /**
   * Runs a graph for this client: limits, cancellation, engine events forwarded (run.started tagged
   * with requestId/streamId), and exactly one final message built from the result (large tensors as
   * binary frames). Rejects with ApiError when a limit refuses it (the error was already sent).
   */
  async run(opts: RunOptions): Promise<RunResult> {
    const ref = opts.requestId ?? opts.streamId;
    const perClient = this.studio.limits.maxRunsPerClient;
    if (this.runs.size >= perClient) {
      const err = new ApiError(
        429,
        'limit',
        limitMessage('too many runs on this connection', 'maxRunsPerClient', perClient),
      );
      this.error(err.code, err.message, ref);
      throw err;
    }
    let release: () => void;
    try {
      release = this.studio.acquireRun();
    } catch (err) {
      this.error('limit', (err as Error).message, ref);
      throw err;
    }
    const runId = randomUUID();
    const cancel = new RunCancel();
    this.runs.set(runId, cancel);
    let terminal: ServerMessage | undefined;
    const onEvent = (m: ServerMessage) => {
      if (isTerminal(m)) terminal = m;
      else this.sender.send(eventForClient(m, opts));
    };
    try {
      const result = await this.studio.engine.run({
        graph: opts.graph,
        inputs: opts.inputs,
        runId,
        signal: cancel,
        onEvent,
        ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
        ...(opts.sequence ? { sequence: opts.sequence } : {}),
        ...(opts.exported ? { exported: true } : {}),
      });
      const { message, frames } = finalMessage(runId, result, terminal);
      this.sender.send(message, frames);
      return result;
    } catch (err) {
      this.sender.send({
        type: 'run.failed',
        runId,
        error: { code: 'internal', message: capMessage((err as Error).message) },
      });
      throw err;
    } finally {
      this.runs.delete(runId);
      release();
    }
  }

  /** The socket went away: cancel its runs and end its sequences. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const run of this.runs.values()) run.abort('the connection closed');
    this.streams.closeAll('cancelled');
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
