import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { HeaderBlockGuard } from './headerBlockGuard.ts';
import { MAX_FRAME_SIZE } from './metadataLimits.ts';

/** The most of a gRPC connection's bytes handed to HTTP/2 in one turn of the event loop. */
export const PACED_SLICE_BYTES = 16 * 1024;

/**
 * A gRPC connection's socket as HTTP/2 reads it: at most `slice` bytes as the socket is read and `slice` more in the
 * turn's last phase (`setImmediate`), then the rest in later turns, the socket unread meanwhile. Given the socket
 * itself, Node's HTTP/2 reads it natively, and libuv reads a readable socket up to 32 times (64 KiB each) before it
 * serves any other: 2,000 `ModelStreamInfer` streams opened at once (~330 bytes each) were all set up by grpc-js,
 * ~0.1-0.3 ms each, before another client's request was read (a single stretch of 200-600 ms of the main thread's
 * CPU). Paced, the setup of ~100 streams runs per turn, with other clients' reads between. A request that fits the
 * turn's slice (a unary call's, a stream's next message) goes to HTTP/2 as it is read: waiting a turn for it cost a
 * unary call 0.1-0.3 ms of the main thread's CPU (server README, "gRPC"). What is read goes through a
 * `HeaderBlockGuard` first (a header field nghttp2 cannot decode would end the whole connection). Writes go straight
 * through, those of one HTTP/2 write in one go (`_writev`); the socket's own backpressure holds the writer.
 * @example injector.injectConnection(new PacedConnection(socket))
 */
export class PacedConnection extends Duplex {
  private readonly received: Buffer[] = [];
  private feeding = false;
  private ended = false;
  private readonly guard = new HeaderBlockGuard(MAX_FRAME_SIZE);
  /** What HTTP/2 may still be handed before the turn's end restores it to `slice`. */
  private allowance: number;
  /** The allowance's restoring is scheduled (`setImmediate`, the turn's last phase). */
  private restoring = false;
  /** HTTP/2 took no more at the last push: nothing goes to it until it reads again (`_read`). */
  private full = false;

  constructor(
    readonly socket: Socket,
    private readonly slice = PACED_SLICE_BYTES,
  ) {
    super({ allowHalfOpen: false });
    this.allowance = slice;
    // Nagle's algorithm off, as on the sockets HTTP/2 was handed before: with it on, a unary gRPC call's answer
    // waited for the client's delayed ACK (the bench's grpc_unary_ms 3.7 -> 48 ms).
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      for (const piece of this.guard.push(chunk)) this.received.push(piece);
      this.handOn();
      if (this.received.length === 0) return;
      // What this turn cannot take waits, and the socket is not read until it has gone.
      socket.pause();
      this.feedNextTurn();
    });
    socket.once('end', () => {
      this.received.push(...this.guard.end());
      this.ended = true;
      this.feedNextTurn();
    });
    socket.once('error', (err) => this.destroy(err));
    // After the peer's end, what was received still goes to HTTP/2 (then the end); a close without one cuts it.
    socket.once('close', () => {
      if (!this.ended) this.destroy();
    });
  }

  // What grpc-js and Node's HTTP/2 read of a connection's ends (its peer's address, for one).
  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.socket.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }
  get localPort(): number | undefined {
    return this.socket.localPort;
  }

  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, delay?: number): this {
    this.socket.setKeepAlive(enable, delay);
    return this;
  }

  setTimeout(ms: number, callback?: () => void): this {
    this.socket.setTimeout(ms, callback);
    return this;
  }

  override _read(): void {
    this.full = false;
    this.feedNextTurn();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (this.socket.destroyed) return done(new Error('the connection is closed'));
    this.socket.write(chunk);
    this.whenWritable(done);
  }

  /** The buffers of one HTTP/2 write (a response's headers, message and trailers) in one write to the socket. */
  override _writev(chunks: { chunk: Buffer }[], done: (err?: Error | null) => void): void {
    if (this.socket.destroyed) return done(new Error('the connection is closed'));
    this.socket.cork();
    for (const { chunk } of chunks) this.socket.write(chunk);
    this.socket.uncork();
    this.whenWritable(done);
  }

  /** Calls `done` once the socket takes more: now, or at its drain (or its close). */
  private whenWritable(done: () => void): void {
    if (!this.socket.writableNeedDrain) return done();
    const settle = () => {
      this.socket.off('drain', settle).off('close', settle);
      done();
    };
    this.socket.once('drain', settle).once('close', settle);
  }

  override _final(done: (err?: Error | null) => void): void {
    if (this.socket.destroyed) return done();
    this.socket.once('close', () => done());
    this.socket.end();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }

  private feedNextTurn(): void {
    if (this.feeding) return;
    this.feeding = true;
    setImmediate(() => this.feed());
  }

  /** Hands HTTP/2 what was received, up to the turn's allowance and while it takes more. */
  private handOn(): void {
    while (!this.full && this.allowance > 0) {
      const first = this.received[0];
      if (first === undefined) return;
      const piece = first.subarray(0, this.allowance);
      if (piece.length === first.length) this.received.shift();
      else this.received[0] = first.subarray(piece.length);
      this.allowance -= piece.length;
      this.restoreAtTurnEnd();
      if (!this.push(piece)) this.full = true;
    }
  }

  private restoreAtTurnEnd(): void {
    if (this.restoring) return;
    this.restoring = true;
    setImmediate(() => {
      this.restoring = false;
      this.allowance = this.slice;
    });
  }

  /** A turn's last phase: hands on the next slice; reads the socket again once everything received has gone. */
  private feed(): void {
    this.feeding = false;
    if (this.destroyed) return;
    this.handOn();
    if (this.received.length > 0) {
      if (!this.full) this.feedNextTurn();
      return;
    }
    if (this.ended) this.push(null);
    else this.socket.resume();
  }
}
