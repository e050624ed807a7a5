// The tests' scratch directories (see apps/server/src/testing/tempDir.ts): one helper for every package.
export { removeTempDir, tempDir } from '../../apps/server/src/testing/tempDir.ts';
