// `pnpm bench`: runs bench/main.ts from its bundle (src/scriptBundle.mjs), as the CLI and the contenders run theirs,
// so that the bench's own process (the gRPC scenario's server and engine) runs the code a user runs, not the same code
// under tsx's loader.
import { bundleScript } from '../src/scriptBundle.mjs';
import { tierUpSooner } from '../src/v8Tiering.mjs';

tierUpSooner(); // as `serve` runs (src/v8Tiering.mjs): the gRPC scenario's server and engine are in this process

await import((await bundleScript(new URL('./main.ts', import.meta.url))).href);
