import { dirname } from 'node:path';

/**
 * glibc gives every allocation over 128 KiB its own fresh mapping and unmaps it on free, so each frame's
 * multi-megabyte buffer costs a page fault per 4 KiB page (1197 per 4.9 MB round trip, measured). Served
 * from the heap (up to 64 MiB) with up to 256 MiB kept free there, the stub's frame buffers reuse mapped
 * pages (80 faults per round trip). A user's own setting of either variable wins.
 */
const MALLOC_REUSE = {
  MALLOC_MMAP_THRESHOLD_: '67108864',
  MALLOC_TRIM_THRESHOLD_: '268435456',
  ...pick(process.env, ['MALLOC_MMAP_THRESHOLD_', 'MALLOC_TRIM_THRESHOLD_']),
};

function pick(env: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  return Object.fromEntries(names.filter((n) => env[n] !== undefined).map((n) => [n, env[n]!]));
}

/**
 * The environment of a stub process running `modelFile`: the server's, with the stub and the model's directory
 * first on PYTHONPATH (as Triton's stub finds `triton_python_backend_utils` and the model's own modules),
 * unbuffered output, no bytecode written into the repository, and the allocator settings above.
 * @example startStub({ file: 'python3', args, env: stubEnv(stubDir, '/repo/m/1/model.py'), cwd, stdout: true })
 */
export function stubEnv(stubDir: string, modelFile: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: [stubDir, dirname(modelFile), process.env.PYTHONPATH].filter(Boolean).join(':'),
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    ...MALLOC_REUSE,
  };
}
