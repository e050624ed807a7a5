import type { Readable, Writable } from 'node:stream';
import { FrameRefused, FrameWriter, type Frame, type FrameReader } from './frames.ts';
import type { TensorRegions } from './tensorRegions.ts';

// The stub's frame pipes (PROTOCOL.md): fds 3 and 5 carry frames to it, fd 4 frames from it.

/**
 * Follows the frames the stub writes on fd 4: each frame's region tensors are read before `onFrame` sees it, and
 * the region ranges read from a chunk go back to the stub at once in one `shm_release` frame (`release`). A refused
 * or malformed frame ends the stream (nothing more is read from it) and `broken` says why.
 */
export function followStubFrames(
  fromPy: Readable,
  reader: FrameReader,
  regions: TensorRegions,
  onFrame: (f: Frame) => void,
  release: (frame: Buffer[]) => void,
  broken: (why: string) => void,
): void {
  fromPy.on('data', (chunk: Buffer) => {
    try {
      for (const f of reader.push(chunk)) {
        regions.readFrame(f);
        onFrame(f);
      }
      const read = regions.takeReadBack();
      if (read.length > 0) release(new FrameWriter().finish({ type: 'shm_release', offsets: read }));
    } catch (err) {
      fromPy.destroy();
      const message = (err as Error).message;
      broken(err instanceof FrameRefused ? message : `sent a malformed frame (${message})`);
    }
  });
}

/** Writes one frame to the stub (nothing once the pipe is gone: the exit handler reports a dead process). */
export function writeFrame(w: Writable | undefined, buffers: Buffer[]): void {
  if (!w || w.destroyed) return;
  // One writev per frame: written piece by piece, python woke on the first piece and the frame cost a
  // wake-up and a read per piece (~20 µs a round trip at 2 cores).
  w.cork();
  for (const b of buffers) w.write(b);
  w.uncork();
}

/** How long a stub that exited while loading is given for the rest of its stderr (its traceback) to be read. */
const STDERR_AFTER_EXIT_MS = 250;

/**
 * Calls `then` once `stderr` has ended, or after `STDERR_AFTER_EXIT_MS`: the stub's exit and its stderr come by
 * different ways (the helper's message, the pipe), so the exit can be heard before the traceback that explains it.
 * @example afterStderr(proc.pipes.stderr, () => reject(loadProblem(python, why, lines)))
 */
export function afterStderr(stderr: Readable, then: () => void): void {
  if (stderr.readableEnded || stderr.destroyed) return then();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    then();
  };
  const timer = setTimeout(finish, STDERR_AFTER_EXIT_MS);
  stderr.once('end', finish);
  stderr.once('close', finish);
}
