// Entry of a contender's child process (contenderProcess.ts): registers tsx's loader, as workerBoot.mjs does for
// worker threads, so the same TypeScript runs under tsx (the bench) and vitest alike.
import { register } from 'tsx/esm/api';

register();
await import('./contenderChild.ts');
