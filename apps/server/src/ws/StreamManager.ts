import type { ClientMessage, GraphDoc, Tensor } from '@ensemble-studio/core';
import { randomUUID } from 'node:crypto';
import type { SequenceEnded } from '../engine/modelRuntimeTypes.ts';
import { ApiError, capMessage } from '../http/errors.ts';
import { limitMessage } from '../http/limits.ts';
import type { StudioEngine } from '../http/Studio.ts';
import type { StreamClient } from './streamClient.ts';
import { streamIdle } from './streamIdle.ts';
import { decodeWireTensors } from './wireTensors.ts';

type SequenceId = number | string;

/** One open sequence stream of a client. */
interface Stream {
  streamId: string;
  graph: GraphDoc;
  /** The id the client chose or was given, as the client sees it. */
  sequenceId: SequenceId;
  /** The id the engine knows the sequence by: unique to this connection, so clients never share one. */
  engineId: string;
  chunks: number;
  /** Appends run one after another (a sequence's requests are ordered). */
  tail: Promise<void>;
  ended: boolean;
  release: () => void;
  /** Ends a stream that got no chunk within its idle timeout (a fed one is idled by the engine). */
  unfed: NodeJS.Timeout | undefined;
}

// Server-chosen ids are strings so they can never collide with the numeric ids clients choose.
let nextSequenceId = 1;

/**
 * A client's sequence streams: each append is one engine run with `sequence: {id, start, end}`
 * (start on the first chunk, end on `end: true`), run in order; emits sequence.chunk per chunk
 * and sequence.ended once (end, failed, idle when a model's idle timeout ended it, or cancelled when
 * the socket goes away).
 */
export class StreamManager {
  private readonly streams = new Map<string, Stream>();
  private readonly connection = randomUUID();
  /** The engine whose ended sequences this client listens to, and how to stop listening. */
  private watched: { engine: StudioEngine; stop: () => void } | undefined;

  constructor(private readonly client: StreamClient) {}

  open(msg: Extract<ClientMessage, { type: 'stream.open' }>): void {
    const { streamId } = msg;
    if (this.streams.has(streamId))
      return this.client.error('stream-exists', `stream "${streamId}" is already open`, streamId);
    const perClient = this.client.studio.limits.maxSequencesPerClient;
    if (this.streams.size >= perClient) {
      return this.client.error(
        'limit',
        limitMessage('too many open sequences on this connection', 'maxSequencesPerClient', perClient),
        streamId,
      );
    }
    let graph: GraphDoc;
    let release: () => void;
    try {
      graph = this.client.studio.resolveGraph(msg.graph);
      release = this.client.studio.acquireStream();
    } catch (err) {
      return this.client.error(err instanceof ApiError ? err.code : 'bad-graph', (err as Error).message, streamId);
    }
    const sequenceId = msg.sequenceId ?? `studio-stream-${nextSequenceId++}`;
    if (sequenceId === 0 || sequenceId === '') {
      release();
      return this.client.error(
        'bad-sequence',
        'sequenceId must be non-zero (0 and "" mean "not in a sequence")',
        streamId,
      );
    }
    const engineId = `ws-${this.connection}-${typeof sequenceId}-${sequenceId}`;
    if ([...this.streams.values()].some((s) => s.engineId === engineId)) {
      release();
      return this.client.error(
        'sequence-exists',
        `sequence ${JSON.stringify(sequenceId)} is already open on this connection`,
        streamId,
      );
    }
    const stream: Stream = {
      streamId,
      graph,
      sequenceId,
      engineId,
      chunks: 0,
      tail: Promise.resolve(),
      ended: false,
      release,
      unfed: undefined,
    };
    this.streams.set(streamId, stream);
    // A stream never fed has no sequence in the engine for its idle timeout to end, yet holds a slot.
    const idle = streamIdle(graph, this.client.studio.catalogue);
    stream.unfed = setTimeout(() => {
      const timeout = `${idle.microseconds / 1e6} s`;
      const whose = idle.model
        ? `max_sequence_idle_microseconds of model '${idle.model}'`
        : 'the default max_sequence_idle_microseconds';
      this.finish(
        stream,
        'idle',
        `stream "${streamId.slice(0, 128)}" ended: no chunk arrived within ${timeout} of stream.open (${whose}); open a new stream to go on`,
      );
    }, idle.microseconds / 1000);
  }

  append(
    msg: Extract<ClientMessage, { type: 'stream.append' }>,
    frames: Uint8Array[],
    decoded?: Record<string, Tensor>,
  ): void {
    const s = this.streams.get(msg.streamId);
    if (!s || s.ended) return this.client.error('unknown-stream', `no open stream "${msg.streamId}"`, msg.streamId);
    clearTimeout(s.unfed);
    let inputs: Record<string, Tensor>;
    try {
      inputs = decodeWireTensors(msg.inputs, frames, decoded);
    } catch (err) {
      return this.client.error('bad-input', (err as Error).message, msg.streamId);
    }
    const end = msg.end === true;
    if (end) s.ended = true;
    s.tail = s.tail.then(() => this.runChunk(s, inputs, end));
  }

  private async runChunk(s: Stream, inputs: Record<string, Tensor>, end: boolean): Promise<void> {
    if (this.client.isClosed || (s.ended && !end && !this.streams.has(s.streamId))) return;
    this.watchEngine();
    const chunk = s.chunks++;
    try {
      const result = await this.client.run({
        graph: s.graph,
        inputs,
        streamId: s.streamId,
        clientSequenceId: s.sequenceId,
        sequence: { id: s.engineId, start: chunk === 0, end },
      });
      this.client.sender.send({ type: 'sequence.chunk', streamId: s.streamId, chunk, runId: result.runId });
      if (result.status === 'failed') return this.finish(s, 'failed', result.error?.message);
      if (end) this.finish(s, 'end');
    } catch (err) {
      this.finish(s, 'failed', (err as Error).message);
    }
  }

  /** `stream.end` without data: the sequence ends after the chunks already queued. */
  end(streamId: string): void {
    const s = this.streams.get(streamId);
    if (!s) return this.client.error('unknown-stream', `no open stream "${streamId}"`, streamId);
    clearTimeout(s.unfed);
    s.ended = true;
    s.tail = s.tail.then(() => this.finish(s, 'end'));
  }

  /**
   * Listens to the engine that runs this client's chunks (a repository load swaps it), so a sequence
   * that a model's idle timeout ended frees its stream and its slot instead of holding them until the
   * client disconnects.
   */
  private watchEngine(): void {
    const engine = this.client.studio.engine;
    if (this.watched?.engine === engine) return;
    this.watched?.stop();
    this.watched = { engine, stop: engine.onSequenceEnded((e) => this.onEngineEnded(e)) };
  }

  private onEngineEnded(e: SequenceEnded): void {
    if (e.reason !== 'idle') return;
    const s = [...this.streams.values()].find((x) => x.engineId === e.sequenceId);
    if (!s) return;
    this.finish(
      s,
      'idle',
      `stream "${s.streamId.slice(0, 128)}" ended: model '${e.model}' ended its sequence after ${e.idleMicroseconds / 1e6} s without requests (max_sequence_idle_microseconds); open a new stream to go on`,
    );
  }

  private finish(s: Stream, reason: 'end' | 'cancelled' | 'failed' | 'idle', message?: string): void {
    if (!this.streams.has(s.streamId)) return;
    this.streams.delete(s.streamId);
    clearTimeout(s.unfed);
    s.ended = true;
    s.release();
    // A sequence that ended without its END chunk (stream.end with nothing queued, a closed socket)
    // is ended in the engine now rather than at the model's idle timeout.
    this.client.studio.engine.endSequence(s.engineId);
    this.client.sender.send({
      type: 'sequence.ended',
      streamId: s.streamId,
      sequenceId: s.sequenceId,
      reason,
      ...(message ? { message: capMessage(message) } : {}),
    });
  }

  /** Ends every stream (socket closed). */
  closeAll(reason: 'cancelled'): void {
    for (const s of [...this.streams.values()]) this.finish(s, reason);
    this.watched?.stop();
    this.watched = undefined;
  }
}
