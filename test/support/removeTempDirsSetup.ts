// vitest setup file (every project): removes the scratch directories a test file made outside its tests.
import { removeTempDirsAfterFile } from '../../apps/server/src/testing/tempDir.ts';

removeTempDirsAfterFile();
