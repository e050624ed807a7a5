// What a client connection offers the stream manager. RunClient is that connection; the contract lives here so
// that RunClient (which owns a StreamManager) and StreamManager (which calls back into its client) do not import
// each other.
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import type { Studio } from '../http/Studio.ts';
import type { ClientSender } from './ClientSender.ts';

type RunRequest = Parameters<Studio['engine']['run']>[0];
/** What a run of the engine ends with. */
export type RunResult = Awaited<ReturnType<Studio['engine']['run']>>;

/** One run a client asks for: the graph, its inputs and how the client names it. */
export interface RunOptions {
  graph: GraphDoc;
  inputs: Record<string, Tensor>;
  requestId?: string;
  streamId?: string;
  timeoutMs?: number;
  sequence?: RunRequest['sequence'];
  exported?: boolean;
  /** The sequence id as the client knows it (events carry it instead of the engine's id). */
  clientSequenceId?: number | string;
}

/** The client connection as its stream manager uses it. */
export interface StreamClient {
  readonly studio: Studio;
  readonly sender: ClientSender;
  readonly isClosed: boolean;
  /** Sends the client an `error` message. */
  error(code: string, message: string, ref?: string): void;
  /** Runs a graph for the client, under its per-client and global limits. */
  run(opts: RunOptions): Promise<RunResult>;
}
