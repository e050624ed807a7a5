// largeBodyChunks: which bodies are kept as chunks for the body worker. A chunked body (no Content-Length) used to go
// to express.raw whatever its size, so 30 MB sent in chunks was joined and parsed on the main thread.
import { once } from 'node:events';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyChunks, largeBodyChunks } from './bodyChunks.ts';

const LIMIT = 4 << 20;
const THRESHOLD = 1 << 20;
let server: Server;
let url = '';

beforeAll(async () => {
  const app = express();
  app.post('/', largeBodyChunks(LIMIT, THRESHOLD), express.raw({ limit: LIMIT, type: () => true }), (req, res) => {
    const body: unknown = req.body;
    const kind = body instanceof BodyChunks ? 'chunks' : Buffer.isBuffer(body) ? 'buffer' : typeof body;
    res.json({ kind, bytes: (body as { byteLength?: number }).byteLength });
  });
  app.use(
    ((err, _req, res, _next) =>
      void res.status(err.status ?? 500).json({ type: err.type })) as express.ErrorRequestHandler,
  );
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs `bytes` bytes in 64 KiB pieces, chunked (no Content-Length) or with one. */
function post(bytes: number, chunked: boolean): Promise<{ status: number; json: { kind?: string; bytes?: number } }> {
  return new Promise((resolve, reject) => {
    const headers = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(bytes) };
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    for (let sent = 0; sent < bytes; sent += 1 << 16) req.write(Buffer.alloc(Math.min(1 << 16, bytes - sent), 32));
    req.end();
  });
}

describe('largeBodyChunks', () => {
  it('keeps a chunked body over the threshold as its chunks, as one with a Content-Length', async () => {
    expect(await post(2 << 20, true)).toEqual({ status: 200, json: { kind: 'chunks', bytes: 2 << 20 } });
    expect(await post(2 << 20, false)).toEqual({ status: 200, json: { kind: 'chunks', bytes: 2 << 20 } });
  });

  it('hands a body at most the threshold on as one Buffer, chunked or not', async () => {
    expect(await post(THRESHOLD, true)).toEqual({ status: 200, json: { kind: 'buffer', bytes: THRESHOLD } });
    expect(await post(1000, false)).toEqual({ status: 200, json: { kind: 'buffer', bytes: 1000 } });
  });

  it('refuses a chunked body over the limit as the body reader does', async () => {
    expect(await post(LIMIT + 1, true)).toEqual({ status: 413, json: { type: 'entity.too.large' } });
  });
});
