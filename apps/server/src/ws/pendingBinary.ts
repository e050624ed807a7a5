import type { ClientMessage, Tensor } from '@ensemble-studio/core';
import { limitMessage } from '../http/limits.ts';
import { binaryFrameCount, expectedFrameBytes } from './wireTensors.ts';

/** A client message that carries inputs (and may announce binary frames for them). */
export type MessageWithInputs = Extract<ClientMessage, { inputs: unknown }>;

/** A message whose inputs refer to binary frames, waiting for them (their byte total counted against the message limit). */
export interface PendingBinary {
  msg: MessageWithInputs;
  needed: number;
  frames: Uint8Array[];
  bytes: number;
  sizes: (number | undefined)[];
  decoded: Record<string, Tensor>;
}

/** Why a binary frame was refused: the pending message is dropped and the client told. */
interface FrameRefused {
  code: string;
  message: string;
}

/**
 * The binary frames `msg` announces, as a pending message that collects them, or undefined when it announces none.
 * `bytes` is the text message's own size, counted with its frames against the message limit.
 * @throws Error when the announced frame indices are not 0..n-1
 * @example const pending = pendingBinary(msg, data.byteLength, decoded) // undefined: dispatch it now
 */
export function pendingBinary(
  msg: ClientMessage,
  bytes: number,
  decoded: Record<string, Tensor>,
): PendingBinary | undefined {
  const needed = 'inputs' in msg ? binaryFrameCount(msg.inputs) : 0;
  if (needed === 0) return undefined;
  const withInputs = msg as MessageWithInputs;
  const sizes: (number | undefined)[] = [];
  for (const w of Object.values(withInputs.inputs ?? {}))
    if (w.binary !== undefined) sizes[w.binary] = expectedFrameBytes(w);
  return { msg: withInputs, needed, frames: [], bytes, sizes, decoded };
}

/**
 * Adds the next binary frame to `p`. A message and its frames are one message: their total is held to
 * `maxBytes`, and a frame of the wrong size is refused as it arrives instead of after the rest were buffered.
 * @returns the refusal, or undefined when the frame was taken (`p.frames.length === p.needed` once complete)
 * @example const refused = addFrame(pending, data, limits.maxWsMessageBytes)
 */
export function addFrame(p: PendingBinary, data: Uint8Array, maxBytes: number): FrameRefused | undefined {
  const index = p.frames.length;
  const expected = p.sizes[index];
  if (expected !== undefined && data.byteLength !== expected)
    return {
      code: 'bad-input',
      message: `binary frame ${index} has ${data.byteLength} bytes but its input needs ${expected}`,
    };
  p.bytes += data.byteLength;
  if (p.bytes > maxBytes)
    return {
      code: 'limit',
      message: limitMessage(`message with its binary frames (${p.bytes} bytes so far)`, 'maxWsMessageBytes', maxBytes),
    };
  p.frames.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return undefined;
}

/**
 * The id a client gave the message (a run's requestId or a stream's streamId), for the `ref` of errors about it.
 * @example refOf({ type: 'run.start', requestId: 'r1', … }) // 'r1'
 */
export function refOf(msg: MessageWithInputs): string {
  return msg.type === 'run.start' ? msg.requestId : msg.streamId;
}
