import { EngineError } from './errors.ts';
import type { FailureReason } from './Metrics.ts';

/**
 * A model's failed request as Triton classes it: cancelled while it waited or ran is CANCELED; refused by the
 * model's queue or timed out there is REJECTED (Triton's scheduler rejects a request whose queue timeout passed);
 * the model's own code or its instance failing is BACKEND; anything else (bad inputs, an unavailable model) OTHER.
 */
export function failureReason(err: unknown): FailureReason {
  const code = err instanceof EngineError ? err.code : undefined;
  if (code === 'cancelled') return 'CANCELED';
  if (code === 'limit' || code === 'timeout') return 'REJECTED';
  if (code === 'node-failed' || code === 'instance-crashed' || code === 'output-missing') return 'BACKEND';
  return 'OTHER';
}
