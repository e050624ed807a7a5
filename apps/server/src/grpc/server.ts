import {
  Server,
  ServerCredentials,
  status,
  type Metadata,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { keepServingThroughAcceptErrors, stderrLog, type ServerLog } from '../acceptErrors.ts';
import { tokenMatches } from '../http/auth.ts';
import { LISTEN_BACKLOG } from '../listenBacklog.ts';
import type { Studio } from '../http/Studio.ts';
import { infoHandlers } from './handlers/info.ts';
import { sharedMemoryHandlers } from './handlers/sharedMemory.ts';
import { modelInfer } from './handlers/infer.ts';
import { modelStreamInfer } from './handlers/stream.ts';
import { deferLargeRequests } from './deferredRequests.ts';
import { inferenceService, type ProtoMessage } from './loadService.ts';
import { PacedConnection } from './pacedConnection.ts';
import { warmCodecs } from './warmCodecs.ts';
import { raiseHeaderLimits, refuseLargeMetadata } from './metadataLimits.ts';
import { grpcError, grpcStatus } from './status.ts';
import { readyModel } from '../http/routes/kserveTrace.ts';
import { traceSettingFromGrpc, traceSettingsToGrpc } from '../trace/traceRequests.ts';

export interface GrpcServer {
  /** The port bound (the one picked when 0 was asked for). */
  port: number;
  /** `HOST:PORT` as the CLI prints it. */
  address: string;
  /** Stops accepting calls, lets calls in flight finish within `shutdownGraceMs`, then cuts the rest. */
  close(): Promise<void>;
}

/** The bearer token of a call's `authorization` metadata, if any. */
function bearer(metadata: Metadata): string | undefined {
  const h = metadata.get('authorization')[0];
  const m = typeof h === 'string' ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1];
}

const UNAUTHENTICATED = () =>
  grpcStatus(status.UNAUTHENTICATED, 'missing or wrong bearer token (send metadata authorization: Bearer <token>)');
const passThrough = (err: unknown) =>
  typeof (err as { code?: unknown }).code === 'number' && typeof (err as { details?: unknown }).details === 'string'
    ? (err as ReturnType<typeof grpcError>)
    : grpcError(err);

/** The service's implementation: every RPC checks the token first; errors become gRPC statuses. */
function implementation(studio: Studio): UntypedServiceImplementation {
  const allowed = (md: Metadata) => !studio.token || tokenMatches(studio.token, bearer(md));
  const unary =
    (body: (req: ProtoMessage, signal: AbortSignal) => unknown) =>
    (call: ServerUnaryCall<ProtoMessage, ProtoMessage>, callback: sendUnaryData<ProtoMessage>) => {
      if (!allowed(call.metadata)) return callback(UNAUTHENTICATED());
      const abort = new AbortController();
      // grpc-js reports every call's end as a cancel, answered ones too (once their trailers are sent): only a call
      // not yet answered is cancelled (an Error and an abort event per call otherwise, ~15 µs of this thread each).
      let answered = false;
      call.on('cancelled', () => {
        if (!answered) abort.abort(new Error('the gRPC client cancelled the call'));
      });
      Promise.resolve()
        .then(() => body(call.request, abort.signal))
        .then(
          (res) => {
            answered = true;
            callback(null, res);
          },
          (err: unknown) => {
            answered = true;
            callback(passThrough(err));
          },
        );
    };
  const impl: UntypedServiceImplementation = {};
  for (const [name, body] of Object.entries({ ...infoHandlers(studio), ...sharedMemoryHandlers(studio) }))
    impl[name] = unary(body);
  impl.LogSettings = unary((req) => {
    studio.logSettings.updateFromGrpc(req.settings as Parameters<Studio['logSettings']['updateFromGrpc']>[0]);
    return studio.logSettings.toGrpc();
  });
  impl.TraceSetting = unary((req) => {
    const model = req.model_name ? readyModel(studio, String(req.model_name)) : undefined;
    const settings = req.settings as Parameters<typeof traceSettingFromGrpc>[0];
    // Triton changes nothing for a request that names no setting.
    if (settings && Object.keys(settings).length > 0) studio.traces.update(model, traceSettingFromGrpc(settings));
    return traceSettingsToGrpc(studio.traces.json(model));
  });
  impl.ModelInfer = unary((req, signal) => modelInfer(studio, req, signal));
  impl.ModelStreamInfer = (call: ServerDuplexStream<ProtoMessage, ProtoMessage>) => {
    if (!allowed(call.metadata)) return void call.emit('error', UNAUTHENTICATED());
    modelStreamInfer(studio, call);
  };
  return impl;
}

/**
 * Serves `inference.GRPCInferenceService` (KServe v2 gRPC with Triton's extensions) for the studio
 * on `host:port` (port 0 picks a free one). Requires `authorization: Bearer <token>` metadata when
 * the studio has a token. `log` takes the listener's own lines (a connection it could not accept).
 * @example const g = await startGrpcServer(studio, '127.0.0.1', 8001); console.log(`grpc listening on ${g.address}`)
 */
export async function startGrpcServer(
  studio: Studio,
  host: string,
  port: number,
  log: ServerLog = stderrLog,
): Promise<GrpcServer> {
  const server = new Server({
    'grpc.max_receive_message_length': studio.limits.maxBodyBytes,
    'grpc.max_send_message_length': -1,
    interceptors: [refuseLargeMetadata],
  });
  raiseHeaderLimits(server);
  const { definition, service } = inferenceService();
  // Every message type's code generated now, before listening, rather than in the turn of a client's first message.
  warmCodecs(definition, service);
  server.addService(deferLargeRequests(service), implementation(studio));
  const hostForAddress = host.includes(':') ? `[${host}]` : host;
  // grpc-js's own bindAsync listens with Node's default backlog; a listener of ours hands it each connection.
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const listener = createNetServer((socket) => injector.injectConnection(new PacedConnection(socket)));
  await new Promise<void>((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE'
          ? 'the port is in use (--grpc-port 0 picks a free one, off turns gRPC off)'
          : err.message;
      server.forceShutdown();
      reject(new Error(`gRPC cannot listen on ${hostForAddress}:${port}: ${why}`));
    };
    listener.once('error', refused);
    listener.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      listener.off('error', refused);
      resolve();
    });
  });
  keepServingThroughAcceptErrors(listener, 'gRPC', log);
  const bound = (listener.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      listener.close();
      const timer = setTimeout(() => server.forceShutdown(), studio.limits.shutdownGraceMs);
      server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    }));
  return { port: bound, address: `${hostForAddress}:${bound}`, close };
}
