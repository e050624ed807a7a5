import { listSupportedBackends } from 'onnxruntime-node';
import { catalogueModel } from '@ensemble-studio/core';
import type { ModelRuntime } from './ModelRuntime.ts';
import { instanceCount } from './modelSetup.ts';
import type { RuntimesHealth } from './modelRuntimeTypes.ts';
import type { Repository } from '../repo/types.ts';
import type { EngineHealth } from './types.ts';

/** What `runtimesHealth` reads: the runtimes by key, the models refused and why, the new runtimes still loading. */
interface RuntimesView {
  loaded: ReadonlyMap<string, ModelRuntime>;
  unavailable: ReadonlyMap<string, string>;
  starting: ReadonlyMap<string, { rt: ModelRuntime }>;
  repository: Repository;
}

/**
 * Every model's state, instances and timings, the execution providers in use and the notices. A model refused
 * before it had a runtime reports the instances its config asks for; a provider that failed a session is not
 * offered as available.
 */
export function runtimesHealth({ loaded, unavailable, starting, repository }: RuntimesView): RuntimesHealth {
  const models: EngineHealth['models'] = {};
  const inUse: Record<string, string> = {};
  const notices: string[] = [];
  const failed = new Set<string>();
  for (const [key, rt] of loaded) {
    models[key] = {
      state: rt.state,
      instances: rt.pool.size,
      ...(rt.error ? { error: rt.error } : {}),
      coldStartMs: rt.coldStartMs,
      firstRunMs: rt.firstRunMs,
    };
    if (rt.state === 'ready') inUse[key] = rt.provider;
    notices.push(...rt.notices);
    for (const f of rt.failures) failed.add(f.split(':')[0]!);
  }
  for (const [key, why] of unavailable) {
    const m = catalogueModel(repository.catalogue, key);
    models[key] = { state: 'unavailable', instances: m ? instanceCount(m.config) : 0, error: why };
  }
  for (const [key, { rt }] of starting)
    if (!loaded.has(key)) models[key] = { state: 'loading', instances: rt.pool.size };
  const available = listSupportedBackends()
    .filter((b) => b.bundled && !failed.has(b.name))
    .map((b) => b.name);
  return { models, inUse, notices, available };
}
