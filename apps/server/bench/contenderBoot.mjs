// Entry of a contender's child process (contenderProcess.ts): runs contenderChild.ts from its bundle
// (src/scriptBundle.mjs), as the CLI and the engine's worker threads run theirs, so that the bench times the code
// a user runs and not the same code under tsx's loader (whose compiled output names every closure at run time).
import { bundleScript } from '../src/scriptBundle.mjs';
import { tierUpSooner } from '../src/v8Tiering.mjs';

tierUpSooner(); // every contender, the engine's and its ceilings', with the V8 settings `serve` runs with (src/v8Tiering.mjs)

await import((await bundleScript(new URL('./contenderChild.ts', import.meta.url))).href);
