import type { RequestHandler } from 'express';
import { errorHandler } from './errors.ts';

/**
 * `handler`, its errors answered where they are raised by the app's own error handler (the same status, body and
 * headers), rather than handed to `next`: Express then walks every layer after the route, and a router that runs
 * off its end resumes its parent with `setImmediate`, so a burst of refusals (a full sequence backlog's 503s, an
 * unknown model's 404s) was answered all together in one check phase of ~1 ms of router work each at load.
 * For the KServe model routes, whose only error handler is the app's last layer.
 * @example router.post(`${M}/infer`, answerErrorsHere(inferHandler(studio), studio.limits.maxBodyBytes))
 */
export function answerErrorsHere(handler: RequestHandler, maxBodyBytes: number): RequestHandler {
  const answer = errorHandler(maxBodyBytes);
  return (req, res, next) => {
    const fail = (err: unknown) => answer(err, req, res, next);
    let ret: unknown;
    try {
      ret = handler(req, res, next);
    } catch (err) {
      return fail(err);
    }
    if (ret instanceof Promise) ret.catch(fail);
  };
}
