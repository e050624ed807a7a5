import type { ServerMessage } from '@ensemble-studio/core';
import { WebSocket } from 'ws';

/** Progress messages that may be dropped for a slow client; final run messages never are. */
const DROPPABLE = new Set<ServerMessage['type']>(['run.partial', 'node.started', 'node.finished', 'node.skipped']);

const BACKPRESSURE_POLICY = 'drop-progress';

/**
 * Sends ServerMessages to one socket with backpressure: once `ws.bufferedAmount` passes the cap,
 * `run.partial` and `node.*` progress messages are dropped (never run.completed / failed /
 * exited_early, sequence.*, errors); the client gets a `backpressure` message when dropping starts
 * and another with the total when delivery resumes. Above the cap the client is not read from either
 * (no new runs start) until what was sent to it has been written out: final results are never dropped,
 * so a client that kept starting runs and never read held them all (60 runs of a 21 MB result: +1.1 GB).
 */
export class ClientSender {
  private dropped = 0;
  private totalDropped = 0;
  private readingHeld = false;
  /** Called as each send is written out: reading resumes once the backlog is back under the cap. */
  private readonly written = () => {
    if (this.readingHeld && this.ws.bufferedAmount <= this.maxBufferedBytes) {
      this.readingHeld = false;
      this.ws.resume();
    }
  };

  constructor(
    private readonly ws: WebSocket,
    private readonly maxBufferedBytes: number,
  ) {}

  get droppedCount(): number {
    return this.totalDropped;
  }

  /** Sends one message and its binary frames (in order, right after it). */
  send(msg: ServerMessage, frames: readonly Uint8Array[] = []): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    if (DROPPABLE.has(msg.type)) {
      if (this.ws.bufferedAmount > this.maxBufferedBytes) {
        this.dropped++;
        this.totalDropped++;
        if (this.dropped === 1) this.raw({ type: 'backpressure', dropped: 1, policy: this.policy() });
        return;
      }
      if (this.dropped > 0) {
        this.raw({ type: 'backpressure', dropped: this.dropped, policy: `${this.policy()}; resumed` });
        this.dropped = 0;
      }
    }
    this.raw(msg);
    for (const f of frames) this.ws.send(f, { binary: true }, this.written);
    if (!this.readingHeld && this.ws.bufferedAmount > this.maxBufferedBytes) {
      this.readingHeld = true;
      this.ws.pause();
    }
  }

  private policy(): string {
    return `${BACKPRESSURE_POLICY}: node.* and run.partial are dropped while bufferedAmount > ${this.maxBufferedBytes} bytes (maxBufferedBytes); final run results are always sent`;
  }

  private raw(msg: ServerMessage): void {
    this.ws.send(JSON.stringify(msg), this.written);
  }
}
