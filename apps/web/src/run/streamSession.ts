import type { GraphDoc, InputNode } from '@ensemble-studio/core';
import { windows, Windower } from './audioInput.ts';
import { startMicrophone } from './micInput.ts';
import type { RunSocket } from './runSocket.ts';

/** One live sequence stream the user can end (the sequence finishes normally) or cancel. */
export interface Session {
  streamId: string;
  end(): void;
  cancel(): void;
}

/** Sessions still sending, by stream id: module-wide so they outlive the run panel being closed and reopened. */
export const liveSessions = new Map<string, Session>();

/** Where a stream's windows go: one `stream.append` per 576-sample window, shaped as the input wants. */
interface Target {
  socket: RunSocket;
  graph: GraphDoc;
  node: InputNode;
  batched: boolean;
}

function sendWindow({ socket, node, batched }: Target, streamId: string, w: Float32Array, end: boolean): void {
  const shape = node.params.dims.map((d) => (d < 0 ? w.length : d));
  socket.append(
    streamId,
    { [node.params.name]: { datatype: 'FP32', shape: batched ? [1, ...shape] : shape, bytes: w } },
    end,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Streams decoded samples window by window (START on the first, END on the last), in real time
 * when asked (one 512-sample window per 32 ms, as it plays). `end()` stops sending and ends the
 * sequence after what was sent; `cancel()` ends it at once and marks it cancelled.
 * @example const s = streamSamples(target, samples, 'speech.wav', true); s.cancel()
 */
export function streamSamples(
  t: Target,
  samples: Float32Array,
  source: string,
  realtime: boolean,
  onDone?: () => void,
): Session {
  const streamId = t.socket.openStream(t.graph, source);
  let stopped = false;
  void (async () => {
    await Promise.resolve(); // the caller has its Session before anything (onDone included) happens
    const chunks = [...windows(samples)];
    // Stops when asked, or when the server ended the stream (failed, idle).
    for (let i = 0; i < chunks.length && !stopped && !t.socket.streamEnded(streamId); i++) {
      sendWindow(t, streamId, chunks[i]!, i === chunks.length - 1);
      if (realtime) await sleep(32);
    }
    onDone?.();
  })();
  return {
    streamId,
    end() {
      if (stopped) return;
      stopped = true;
      t.socket.endStream(streamId);
    },
    cancel() {
      stopped = true;
      t.socket.cancelStream(streamId);
    },
  };
}

/**
 * Records the microphone into a sequence: 16 kHz windows are sent as they fill, one held back so
 * that stopping sends the last (zero-padded) one with END.
 * @example const s = await streamMicrophone(target); …; s.end()
 */
export async function streamMicrophone(t: Target, onDone?: () => void): Promise<Session> {
  let streamId: string | null = null;
  let held: Float32Array | null = null;
  const windower = new Windower((w) => {
    // The server ended the stream (failed, idle): release the microphone, whichever panel is open.
    if (streamId && t.socket.streamEnded(streamId)) {
      stop();
      held = null;
      return;
    }
    if (held && streamId) sendWindow(t, streamId, held, false);
    held = w;
  });
  const mic = await startMicrophone((x) => windower.push(x));
  const id = t.socket.openStream(t.graph, `microphone (${Math.round(mic.rate / 1000)} kHz → 16 kHz)`); // RunPanel finds mic sessions by this prefix
  streamId = id;
  let stopped = false;
  const stop = () => {
    if (stopped) return false;
    stopped = true;
    void mic.stop();
    onDone?.();
    return true;
  };
  return {
    streamId: id,
    end() {
      if (!stop()) return;
      windower.flush();
      if (held) sendWindow(t, id, held, true);
      else t.socket.endStream(id);
      held = null;
    },
    cancel() {
      stop();
      held = null;
      t.socket.cancelStream(id);
    },
  };
}
