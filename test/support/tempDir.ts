// The tests' scratch directories (see apps/server/src/testSupport/tempDir.ts): one helper for every package.
export { removeTempDir, tempDir } from '../../apps/server/src/testSupport/tempDir.ts';
