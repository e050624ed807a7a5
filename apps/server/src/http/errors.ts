import type { ErrorRequestHandler, Response } from 'express';
import type { ApiErrorBody } from '@ensemble-studio/core';
import { PathError } from '../repo/safeJoin.ts';
import { GraphNameError } from '../repo/saveGraph.ts';

/** An API error with its HTTP status, a stable code and optional details (diagnostics, limits…). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * A 400 `bad-request` error: the request itself is malformed (Triton's INVALID_ARG).
 * @example throw badRequest(`unexpected inference input '${name}'`)
 */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 'bad-request', message);
}

/** Longest error message sent to a client: messages quote names and shapes the client chose. */
export const MAX_ERROR_MESSAGE = 1000;

/**
 * An error message cut to MAX_ERROR_MESSAGE characters, saying how much was cut, so a 100 KB input
 * name or a 100k-dimension shape is not echoed back in full.
 * @example capMessage('x'.repeat(5000)).length < 1100
 */
export function capMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE)}… (${message.length - MAX_ERROR_MESSAGE} more characters)`;
}

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
  message?: string;
}

/** Maps any thrown value to {status, code, message, details}. */
export function toApiError(err: unknown, maxBodyBytes: number): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof PathError) return new ApiError(400, err.code, err.message);
  if (err instanceof GraphNameError) return new ApiError(409, err.code, err.message);
  const e = (err ?? {}) as BodyParserError;
  if (e.type === 'entity.too.large') {
    return new ApiError(413, 'too-large', `request body is over the limit maxBodyBytes=${maxBodyBytes}`, {
      limit: 'maxBodyBytes',
      value: maxBodyBytes,
    });
  }
  if (e.type === 'entity.parse.failed')
    return new ApiError(400, 'bad-json', `request body is not valid JSON: ${e.message ?? ''}`.trim());
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500)
    return new ApiError(e.status, 'bad-request', e.message ?? 'bad request');
  return new ApiError(500, 'internal', err instanceof Error ? err.message : String(err));
}

/** Sends `{error:{code,message,details}}` with the error's status. */
function sendApiError(res: Response, err: ApiError): void {
  if (res.headersSent) return void res.end();
  const body = {
    error: {
      code: err.code,
      message: capMessage(err.message),
      ...(err.details === undefined ? {} : { details: err.details }),
    },
  };
  res.status(err.status).json(body satisfies ApiErrorBody);
}

/**
 * Error middleware: `/v2/*` answers in KServe's form `{"error":"msg"}`, everything else in the
 * studio's `{error:{code,message,details}}` form. Never leaks a stack trace.
 * @example app.use(errorHandler(limits.maxBodyBytes))
 */
export function errorHandler(maxBodyBytes: number): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const api = toApiError(err, maxBodyBytes);
    if (res.headersSent) return void res.end();
    if (req.path.startsWith('/v2')) return void res.status(api.status).json({ error: capMessage(api.message) });
    sendApiError(res, api);
  };
}

/**
 * A write to the repository the disk refused, said plainly (saves are atomic, so nothing old was
 * lost); other errors are returned as they are. Only write routes use it: a read that fails with
 * EACCES is not "nothing was saved".
 * @example try { await saveGraph(repo, g); } catch (err) { throw storageError(err); }
 */
export function storageError(err: unknown): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new ApiError(
      507,
      'storage-full',
      `the disk is full, so nothing was written (the previously saved files are intact): ${message}`,
    );
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
    return new ApiError(
      500,
      'storage-denied',
      `the repository cannot be written (${String(code)}), so nothing was saved: ${message}`,
    );
  return err;
}
