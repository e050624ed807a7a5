/**
 * Single-config rules for dynamic batching and the response cache (as Triton core's `ValidateModelConfig`
 * checks them); sequence batching's are in sequenceRules.ts.
 */
import type { Diagnostic } from '../../validate/diagnostic.ts';
import type { ModelConfig } from '../modelConfig.ts';
import { asList, asRecord, error, isDecoupled } from './util.ts';

/** Preferred batch sizes (dynamic or oldest-sequence batching) against max_batch_size. */
export function checkPreferred(sizes: number[], mbs: number, what: string, name: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const s of sizes) {
    if (s < 1)
      out.push(
        error(
          'preferred-batch-size',
          `${what} must be positive for ${name} (got ${s})`,
          'remove the size or make it 1 or more',
        ),
      );
    else if (s > mbs) {
      out.push(
        error(
          'preferred-batch-size',
          `${what} must be <= max batch size for ${name} (${s} > ${mbs})`,
          `lower the preferred size to at most ${mbs} or raise max_batch_size`,
        ),
      );
    }
  }
  return out;
}

export function checkDynamicBatching(config: ModelConfig, m: string): Diagnostic[] {
  if (config.dynamic_batching === undefined) return [];
  const db = asRecord(config.dynamic_batching);
  const mbs = config.max_batch_size ?? 0;
  const name = config.name || m;
  const out = checkPreferred(asList<number>(db.preferred_batch_size), mbs, 'dynamic batching preferred size', name);
  const levels = typeof db.priority_levels === 'number' ? db.priority_levels : 0;
  const policies = asRecord(db.priority_queue_policy);
  if (levels > 0) {
    const dflt = typeof db.default_priority_level === 'number' ? db.default_priority_level : 0;
    if (dflt < 1 || dflt > levels) {
      out.push(
        error(
          'priority-level-range',
          `default priority level must be in range [1, ${levels}] for ${name} (got ${dflt})`,
          `set default_priority_level between 1 and ${levels}`,
        ),
      );
    }
    for (const key of Object.keys(policies)) {
      const k = Number(key);
      if (k < 1 || k > levels)
        out.push(
          error(
            'priority-level-range',
            `priority queue policy must have priority level in range [1, ${levels}] for ${name} (got ${key})`,
            `use levels 1 to ${levels}`,
          ),
        );
    }
  }
  if (db.preserve_ordering === true) {
    if (levels > 1)
      out.push(
        error(
          'preserve-ordering-priority',
          `Only one priority level is allowed when 'preserve_ordering' is true for ${name}`,
          'use one priority level or turn off preserve_ordering',
        ),
      );
    // A DELAY action only matters when a timeout can fire: Triton accepts it with a zero default timeout.
    const all = [db.default_queue_policy, ...Object.values(policies)].map(asRecord);
    if (all.some((p) => p.timeout_action === 'DELAY' && Number(p.default_timeout_microseconds ?? 0) !== 0)) {
      out.push(
        error(
          'preserve-ordering-delay',
          `Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for ${name}`,
          'use timeout_action: REJECT, a zero default_timeout_microseconds, or turn off preserve_ordering',
        ),
      );
    }
  }
  return out;
}

export function checkResponseCache(config: ModelConfig, m: string): Diagnostic[] {
  if (asRecord(config.response_cache).enable !== true) return [];
  const out: Diagnostic[] = [];
  const name = config.name || m;
  if (config.sequence_batching !== undefined) {
    out.push(
      error(
        'response-cache-sequence',
        `Response Cache does not currently support model ${name} with sequence batching scheduler. Please disable the response cache.`,
        'disable response_cache',
      ),
    );
  }
  if (isDecoupled(config)) {
    out.push(
      error(
        'response-cache-decoupled',
        `Response Cache does not currently support model ${name} with 'decoupled' transaction policy. Please disable the response cache.`,
        'disable response_cache',
      ),
    );
  }
  return out;
}
