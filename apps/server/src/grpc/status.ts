import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { capMessage, toApiError } from '../http/errors.ts';

/** The gRPC status Triton answers for each HTTP status the shared KServe code throws. */
function codeFor(httpStatus: number): status {
  switch (httpStatus) {
    case 400:
    case 413:
      return status.INVALID_ARGUMENT;
    case 401:
      return status.UNAUTHENTICATED;
    case 403:
      return status.PERMISSION_DENIED;
    case 404:
      return status.NOT_FOUND;
    case 409:
      return status.ALREADY_EXISTS;
    case 501:
      return status.UNIMPLEMENTED;
    case 503:
      return status.UNAVAILABLE;
    default:
      return httpStatus < 500 ? status.INVALID_ARGUMENT : status.INTERNAL;
  }
}

/**
 * Any thrown value as a gRPC error (status code + message, capped as every error sent to a client is),
 * never a stack trace.
 * @example callback(grpcError(err))
 */
export function grpcError(err: unknown): Partial<ServiceError> {
  const api = toApiError(err, 0);
  // Triton's ALREADY_EXISTS is a 400 over HTTP and its own code over gRPC.
  const code = api.code === 'already-exists' ? status.ALREADY_EXISTS : codeFor(api.status);
  return { code, details: capMessage(api.message), metadata: new Metadata() };
}

/** A gRPC error with an explicit code. */
export function grpcStatus(code: status, details: string): Partial<ServiceError> {
  return { code, details: capMessage(details), metadata: new Metadata() };
}
