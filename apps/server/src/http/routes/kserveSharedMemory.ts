import type { Request, RequestHandler, Router } from 'express';
import { isObj } from '@ensemble-studio/core';
import { badRequest } from '../errors.ts';
import type { Studio } from '../Studio.ts';
import { smallJsonBody } from './smallJsonBody.ts';
const NOT_STRING = 'attempt to access JSON non-string as string';
const NOT_UINT = 'attempt to access JSON non-unsigned-integer as unsigned-integer';

/** What a system shared memory register request asks for, read as Triton's HTTP endpoint reads it. */
interface RegisterRequest {
  key: string;
  offset: number;
  byteSize: number;
}

const isUInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * A register request's body: `key`, `byte_size` and an optional `offset`, with Triton's messages.
 * @throws ApiError 400.
 * @example registerRequest({ key: '/k', byte_size: 64 }) // { key: '/k', offset: 0, byteSize: 64 }
 */
function registerRequest(json: unknown): RegisterRequest {
  if (!isObj(json) || !Object.hasOwn(json, 'key'))
    throw badRequest("Shared memory register request has no 'key' field");
  if (typeof json.key !== 'string') throw badRequest(NOT_STRING);
  if (Object.hasOwn(json, 'offset') && !isUInt(json.offset)) throw badRequest(NOT_UINT);
  if (!Object.hasOwn(json, 'byte_size')) throw badRequest("Shared memory register request has no 'byte_size' field");
  if (!isUInt(json.byte_size)) throw badRequest(NOT_UINT);
  return { key: json.key, offset: (json.offset as number | undefined) ?? 0, byteSize: json.byte_size };
}

const region = (req: Request) => (req.params.region === undefined ? '' : String(req.params.region));

/** Triton answers a method its endpoint does not take with 405. */
const notAllowed: RequestHandler = (_req, res) => void res.status(405).json({ error: 'Method Not Allowed' });

/**
 * Triton's shared memory extension over HTTP. System memory: `GET /v2/systemsharedmemory[/region/{r}]/status`,
 * `POST /v2/systemsharedmemory/region/{r}/register` (`{key, offset, byte_size}`), `POST
 * /v2/systemsharedmemory[/region/{r}]/unregister`; registering and unregistering need `--allow-client-shm`. CUDA
 * memory: its status lists none, and registering is refused as a Triton without GPUs refuses it.
 * @example sharedMemoryRoutes(studio, router) // after the body readers of /v2/systemsharedmemory
 */
export function sharedMemoryRoutes(studio: Studio, router: Router): void {
  const shm = studio.sharedMemory;
  const S = '/v2/systemsharedmemory{/region/:region}';
  router.get(`${S}/status`, (req, res) => void res.json(shm.status(region(req))));
  router.post('/v2/systemsharedmemory/region/:region/register', (req, res) => {
    shm.assertAllowed(); // Triton's message, before the body's own problems
    const r = registerRequest(smallJsonBody(req, 'a shared memory register request'));
    shm.register(region(req), r.key, r.offset, r.byteSize);
    res.status(200).end();
  });
  router.post(`${S}/unregister`, (req, res) => {
    shm.unregister(region(req));
    res.status(200).end();
  });
  router.all(`${S}/status`, notAllowed);
  router.all(`${S}/:action`, notAllowed);

  const C = '/v2/cudasharedmemory{/region/:region}';
  router.get(`${C}/status`, (req, res) => void res.json(shm.cudaStatus(region(req))));
  router.post('/v2/cudasharedmemory/region/:region/register', (req) => {
    throw badRequest(`failed to register CUDA shared memory region: '${region(req)}', GPUs not supported`);
  });
  router.post(`${C}/unregister`, (req, res) => {
    shm.assertAllowed();
    res.status(200).end();
  });
}
