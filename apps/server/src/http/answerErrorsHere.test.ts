import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { answerErrorsHere } from './answerErrorsHere.ts';
import { ApiError, errorHandler } from './errors.ts';

const refuseAsync: RequestHandler = () =>
  Promise.reject(new ApiError(503, 'limit', "model 'm' has every sequence slot held"));
const refuseSync: RequestHandler = () => {
  throw new ApiError(404, 'not-found', "unknown model: 'nope'");
};

/**
 * An app laid out as the studio's: the route, then an error layer that counts the errors reaching it, then the
 * app's error handler. Answers one POST of `handler`'s route with status, headers (no Date) and body, and how
 * many errors walked past the route.
 */
async function answerOf(handler: RequestHandler) {
  let walked = 0;
  const app = express();
  app.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  app.post('/v2/models/m/infer', handler);
  app.use(((err, _req, _res, next) => {
    walked++;
    next(err);
  }) as express.ErrorRequestHandler);
  app.use(errorHandler(1024));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v2/models/m/infer`, {
      method: 'POST',
      body: '{}',
    });
    const headers = Object.fromEntries([...res.headers].filter(([k]) => k !== 'date'));
    return { status: res.status, headers, body: await res.text(), walked };
  } finally {
    await new Promise((r) => server.close(r));
  }
}

describe('answerErrorsHere', () => {
  it.each([
    ['a rejected promise', refuseAsync],
    ['a synchronous throw', refuseSync],
  ])('answers %s as the app error handler does, without walking the layers after the route', async (_, h) => {
    const walkedTo = await answerOf(h);
    const here = await answerOf(answerErrorsHere(h, 1024));
    expect(walkedTo.walked).toBe(1);
    expect(here.walked).toBe(0);
    expect({ ...here, walked: 1 }).toEqual(walkedTo);
    expect(here.status).toBeGreaterThanOrEqual(404);
    expect(JSON.parse(here.body)).toHaveProperty('error');
  });
});
