// Engine test repositories (engineFixtureRepository.ts) in scratch directories that remove themselves.
import type { ModelConfig } from '@ensemble-studio/core';
import type { Repository } from '../repo/types.ts';
import { tempDir } from './tempDir.ts';
import { writeEngineRepository } from './engineFixtureRepository.ts';

export { syntheticConfigs } from './engineFixtureRepository.ts';

/**
 * The chosen models in a fresh `tempDir('engine-repo-')`, removed when the test (or, made outside a test, the file)
 * that made it finishes; see `writeEngineRepository`.
 * @example const repo = makeTestRepository(['head', 'vad'], { head: { instance_group: [{ count: 1 }] } });
 */
export function makeTestRepository(models: string[], overrides: Record<string, Partial<ModelConfig>> = {}): Repository {
  return writeEngineRepository(tempDir('engine-repo-'), models, overrides);
}
