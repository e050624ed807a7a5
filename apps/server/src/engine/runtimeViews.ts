import type { EngineMetrics } from './Metrics.ts';
import type { ModelRuntime } from './ModelRuntime.ts';
import type { SequenceInfo } from './types.ts';

type Runtimes = Iterable<[key: string, runtime: ModelRuntime]>;

/** Which instance holds each active sequence of `runtimes` (`instance: null` while it waits in the backlog for a slot). */
export function listSequences(runtimes: Runtimes): SequenceInfo[] {
  const out: SequenceInfo[] = [];
  for (const [, rt] of runtimes) {
    for (const b of rt.sequences?.list() ?? []) {
      out.push({
        model: rt.name,
        sequenceId: b.id,
        instance: b.instance >= 0 ? `${rt.name}_${b.instance}` : null,
        lastActiveMs: b.lastActiveMs,
      });
    }
  }
  return out;
}

/** Each runtime's counters (Prometheus /metrics), with the sequences it holds a slot for. */
export function modelCounters(runtimes: Runtimes): EngineMetrics['models'] {
  const models: EngineMetrics['models'] = {};
  for (const [key, rt] of runtimes) {
    const bound = rt.sequences?.list().filter((b) => b.instance >= 0).length ?? 0;
    models[key] = rt.stats.snapshot(bound, rt.pendingRequests, rt.state === 'ready' ? rt.coldStartMs : undefined);
  }
  return models;
}
