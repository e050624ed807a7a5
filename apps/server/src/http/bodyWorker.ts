import { isUtf8 } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import type { Tensor } from '@ensemble-studio/core';
import { decodeInferRequest } from '../grpc/decodeInfer.ts';
import { readRepositoryMessage } from '../grpc/repositoryMessages.ts';
import { INVALID_UTF8, INVALID_UTF8_REASON, parseClientText } from '../ws/parseMessage.ts';
import type { BodyJob, BodyReply, WireResult } from './bodyParser.ts';
import { ownedBytes } from './bodyChunks.ts';
import { classifiedBytes } from './classification.ts';
import { ApiError, badRequest } from './errors.ts';
import { runGraphJob } from './graphJobs.ts';
import { responseBytes } from './responseJobs.ts';
import { parseGenerateBody, parseInferBody } from './kserveBody.ts';
import { readRepositoryBody } from './repositoryBody.ts';

// The body worker: parses large KServe bodies and WebSocket messages so the main thread keeps
// answering other clients. Tensors come back by transfer, not by copy.

function transferables(tensors: Iterable<Tensor>): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const t of tensors) {
    if (!Array.isArray(t.data) && t.data.byteOffset === 0 && t.data.byteLength === t.data.buffer.byteLength)
      out.push(t.data.buffer as ArrayBuffer);
  }
  return out;
}

function run(job: BodyJob, body: Uint8Array): [WireResult, ArrayBuffer[]] {
  if (job.kind === 'join') {
    const bytes = ownedBytes(body);
    return [{ kind: 'joined', bytes }, [bytes.buffer as ArrayBuffer]];
  }
  if (job.kind === 'ws') {
    // A large text message comes unjoined from the WebSocket server and so unchecked: ws closes with 1007 for bad UTF-8.
    if (!isUtf8(body))
      return [{ kind: 'ws', parsed: { ok: false, code: INVALID_UTF8, message: INVALID_UTF8_REASON } }, []];
    const parsed = parseClientText(body, job);
    if (!parsed.ok) return [{ kind: 'ws', parsed }, []];
    return [
      { kind: 'ws', parsed: { ...parsed, decoded: {} }, decoded: Object.entries(parsed.decoded) },
      transferables(Object.values(parsed.decoded)),
    ];
  }
  if (job.kind === 'response') {
    const bytes = ownedBytes(responseBytes(job));
    return [{ kind: 'response', bytes }, [bytes.buffer as ArrayBuffer]];
  }
  if (job.kind === 'classify') {
    const tensor = classifiedBytes(job);
    return [{ kind: 'classified', tensor }, [tensor.raw.buffer as ArrayBuffer]];
  }
  if (job.kind === 'compile' || job.kind === 'export') {
    const result = runGraphJob(job);
    if (result.kind !== 'zip') return [{ kind: 'graph', result }, []];
    const zip = ownedBytes(result.zip);
    return [{ kind: 'graph', result: { kind: 'zip', zip } }, [zip.buffer as ArrayBuffer]];
  }
  if (job.kind === 'grpcRepository')
    return [{ kind: 'grpcRepository', read: readRepositoryMessage(job.method, body) }, []];
  if (job.kind === 'repository') return [{ kind: 'repository', body: readRepositoryBody(body) }, []];
  if (job.kind === 'grpc') {
    const { inputs, ...rest } = decodeInferRequest(body, job);
    return [{ kind: 'grpc', ...rest, inputs: Object.entries(inputs) }, transferables(Object.values(inputs))];
  }
  const request =
    job.kind === 'infer'
      ? parseInferBody(body, job.headerLength, job.maxTensorElements, job.model)
      : parseGenerateBody(body, job.target, job.maxTensorElements);
  const { inputs, ...rest } = request;
  return [{ kind: 'kserve', request: rest, inputs: Object.entries(inputs) }, transferables(Object.values(inputs))];
}

/** The body's parts joined (here, so the main thread never touches a large body's fresh pages). */
function joined(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

parentPort!.on('message', (job: BodyJob & { id: number; body: Uint8Array[] }) => {
  let reply: BodyReply;
  try {
    const [result, transfer] = run(job, joined(job.body));
    reply = { id: job.id, ok: true, result };
    try {
      parentPort!.postMessage(reply, transfer);
    } catch {
      // Copying a result nested tens of thousands of levels deep overflows the stack: the request is at fault.
      throw badRequest('the request nests objects or arrays too deeply to be passed on');
    }
  } catch (err) {
    const e = err instanceof ApiError ? err : badRequest((err as Error).message);
    reply = { id: job.id, ok: false, error: { status: e.status, code: e.code, message: e.message } };
    parentPort!.postMessage(reply);
  }
});
