import type { ServerOptions as Http2ServerOptions } from 'node:http2';
import { ServerInterceptingCall, status, type Metadata, type Server, type ServerInterceptor } from '@grpc/grpc-js';
import { markedFieldSize, OVERSIZED_FIELD_HEADER } from './oversizedFields.ts';

// Triton's gRPC server is gRPC C-core with its default metadata limits: a request whose header list (each entry
// counted as name + value + 32, as HPACK sizes it) is over the hard limit fails with RESOURCE_EXHAUSTED, and one
// between the soft and the hard limit fails with a probability that grows linearly from 0 to 1 across the band.
// Node's HTTP/2 refused such requests on its own terms instead: over 128 entries (ENHANCE_YOUR_CALM), which
// C-core clients report, or in a header block over 8 CONTINUATION frames or one field over 64 KiB (GOAWAY), which
// they retry until their deadline. The last is nghttp2's fixed limit on one encoded string: such a field reaches
// Node as a mark (`HeaderBlockGuard`), counted here at the field's size.

/** gRPC C-core's default soft limit on a request's metadata (`grpc.max_metadata_size`). */
export const METADATA_SOFT_LIMIT = 8 * 1024;
/** gRPC C-core's default hard limit (`grpc.absolute_max_metadata_size`); it also advertises it to clients. */
export const METADATA_HARD_LIMIT = 16 * 1024;
/**
 * The most header bytes Node's HTTP/2 buffers for one request before refusing it itself (ENHANCE_YOUR_CALM, which
 * clients report as RESOURCE_EXHAUSTED): well over the hard limit so that such requests get Triton's answer,
 * bounded so that a hostile client cannot make a connection buffer headers without end.
 */
const HEADER_LIST_CAP = 1024 * 1024;
/** HPACK's per-entry overhead, which gRPC counts in a header list's size. */
const ENTRY_OVERHEAD = 32;
/**
 * The most header entries Node's HTTP/2 takes for one request: each counts at least 32 bytes, so a list with more is
 * over the hard limit whatever its entries hold, and Node refuses it itself (ENHANCE_YOUR_CALM: RESOURCE_EXHAUSTED at
 * the client) before building them: 15,000 one-byte entries cost the main thread ~55 ms a request to build and
 * refuse here (longest loop delay 177 ms), 600 ~2 ms.
 */
const MAX_ENTRIES = Math.ceil(METADATA_HARD_LIMIT / ENTRY_OVERHEAD) + 16;
/**
 * The largest HTTP/2 frame taken: nghttp2 ends a connection whose header block comes in more than 8
 * CONTINUATION frames (a flood guard), so at the protocol's default 16 KiB a block of 150 KiB closed the connection
 * (clients: UNAVAILABLE); HEADER_LIST_CAP must fit in 9 frames.
 */
export const MAX_FRAME_SIZE = 256 * 1024;

/**
 * Lets Node's HTTP/2 hand requests with up to `HEADER_LIST_CAP` bytes of headers in up to `MAX_ENTRIES` entries to
 * grpc-js, so that `refuseLargeMetadata` answers them. grpc-js builds its HTTP/2 servers from these options and
 * offers no setting for them; call before `createConnectionInjector`.
 * @throws Error when the grpc-js in use keeps its HTTP/2 options elsewhere (an upgrade to look at).
 */
export function raiseHeaderLimits(server: Server): void {
  const options = (server as unknown as { commonServerOptions?: Http2ServerOptions }).commonServerOptions;
  if (!options) throw new Error("grpc-js's HTTP/2 server options are not where they were: metadata limits not set");
  options.settings = { ...options.settings, maxHeaderListSize: HEADER_LIST_CAP, maxFrameSize: MAX_FRAME_SIZE };
  options.maxHeaderListPairs = MAX_ENTRIES;
}

const entry = (name: string, valueBytes: number) => name.length + valueBytes + ENTRY_OVERHEAD;

/**
 * A request's header list size as gRPC C-core counts it: its metadata, path and authority, and the request
 * headers every gRPC client sends (grpc-js keeps `te`, `content-type`, `grpc-timeout` and the encodings to itself:
 * the first two are counted at their usual size, the others not, a difference of ~100 bytes at most). A field too
 * long for Node's HTTP/2, which reaches here as a mark, counts at its own size.
 */
function headerListSize(path: string, authority: string, metadata: Metadata): number {
  let size =
    entry(':method', 4) + entry(':scheme', 4) + entry(':path', path.length) + entry(':authority', authority.length);
  size += entry('te', 'trailers'.length) + entry('content-type', 'application/grpc'.length);
  for (const [name, values] of Object.entries(metadata.toHttp2Headers())) {
    for (const v of Array.isArray(values) ? values : [values]) {
      const marked = name === OVERSIZED_FIELD_HEADER ? markedFieldSize(String(v)) : undefined;
      // Binary values travel in base64 (unpadded, as gRPC sends them).
      const bytes = Buffer.isBuffer(v) ? Math.ceil((v.length * 4) / 3) : Buffer.byteLength(String(v));
      size += marked ?? entry(name, bytes);
    }
  }
  return size;
}

/**
 * Why a request with `size` bytes of headers is refused, in gRPC C-core's words, or undefined when it is not.
 * `random` draws the chance of refusal between the soft and the hard limit.
 */
export function metadataRefusal(size: number, random: () => number = Math.random): string | undefined {
  if (size > METADATA_HARD_LIMIT)
    return `received metadata size exceeds hard limit (${size} vs. ${METADATA_HARD_LIMIT})`;
  if (size > METADATA_SOFT_LIMIT) {
    const chance = (size - METADATA_SOFT_LIMIT) / (METADATA_HARD_LIMIT - METADATA_SOFT_LIMIT);
    if (random() < chance)
      return `received metadata size exceeds soft limit (${size} vs. ${METADATA_SOFT_LIMIT}), rejecting requests with some random probability`;
  }
  return undefined;
}

/** Refuses a call whose metadata is over gRPC's limits with RESOURCE_EXHAUSTED before any handler sees it. */
export const refuseLargeMetadata: ServerInterceptor = (method, call) =>
  new ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, pass) => {
          const why = metadataRefusal(headerListSize(method.path, call.getHost(), metadata));
          if (why) call.sendStatus({ code: status.RESOURCE_EXHAUSTED, details: why });
          else pass(metadata);
        },
      }),
  });
