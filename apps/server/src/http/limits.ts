/** Caps that keep one client from growing server memory or starving others. */
export interface Limits {
  /** Largest HTTP request body (JSON or binary tensors). */
  maxBodyBytes: number;
  /** Largest `/api` body: graph documents and tool requests, parsed on the main thread (they are small). */
  maxApiBodyBytes: number;
  /** Nodes and edges of one graph: validating and compiling grow faster than linearly with them. */
  maxGraphNodes: number;
  maxGraphEdges: number;
  /** Largest WebSocket message (text or binary frame). */
  maxWsMessageBytes: number;
  /** Largest element count of one input tensor. */
  maxTensorElements: number;
  /** Runs one WebSocket client may have in flight. */
  maxRunsPerClient: number;
  /** Runs in flight over all clients (WebSocket, HTTP and gRPC). */
  maxConcurrentRuns: number;
  /** KServe runs (HTTP and gRPC) that may wait for one of `maxConcurrentRuns`, as Triton queues requests; past it 503. */
  maxQueuedRuns: number;
  /** Sequence streams open over all clients. */
  maxOpenSequences: number;
  /** Output ports of one router node (a copy router hands its input to each: `count: 2000` would multiply a response). */
  maxRouterOutputs: number;
  /** Sequence streams one WebSocket client may have open, so one client cannot hold every slot. */
  maxSequencesPerClient: number;
  /** `ws.bufferedAmount` above which progress messages are dropped (backpressure). */
  maxBufferedBytes: number;
  /** Heartbeat interval: a client that misses one pong is terminated. */
  heartbeatMs: number;
  /** How long shutdown waits for runs before cancelling them. */
  shutdownGraceMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxBodyBytes: 64 * 1024 * 1024,
  maxApiBodyBytes: 4 * 1024 * 1024,
  maxGraphNodes: 1024,
  maxGraphEdges: 4096,
  maxWsMessageBytes: 64 * 1024 * 1024,
  maxTensorElements: 16 * 1024 * 1024,
  maxRunsPerClient: 16,
  maxConcurrentRuns: 64,
  maxQueuedRuns: 256,
  maxOpenSequences: 256,
  maxSequencesPerClient: 64,
  maxRouterOutputs: 64,
  maxBufferedBytes: 4 * 1024 * 1024,
  heartbeatMs: 15_000,
  shutdownGraceMs: 5_000,
};

/** The message every limit error carries: the limit's name and its value. */
export function limitMessage(what: string, name: keyof Limits, value: number): string {
  return `${what}: over the limit ${name}=${value}`;
}
