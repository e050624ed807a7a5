import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../../errors.ts';
import { loadProblem, spawnProblem } from './processProblems.ts';
import { startStub, type StubChild } from './stubProcess.ts';

const STUB_DIR = join(dirname(fileURLToPath(import.meta.url)), 'stub');

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
 * @example stubEnv(STUB_DIR, "/repo/m/1/model.py").PYTHONPATH
 */
function stubEnv(stubDir: string, modelFile: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PYTHONPATH: [stubDir, dirname(modelFile), process.env.PYTHONPATH].filter(Boolean).join(':'),
    PYTHONUNBUFFERED: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    ...MALLOC_REUSE,
  };
}

/**
 * Starts the stub process that will run `modelFile` under interpreter `python` (with the environment above, in the
 * model's directory). A process that cannot start rejects with `model-unavailable` saying why and what to do.
 * @example const proc = await startModelStub('/usr/bin/python3', '/repo/m/1/model.py')
 */
export async function startModelStub(python: string, modelFile: string): Promise<StubChild> {
  try {
    return await startStub({
      file: python,
      args: ['-u', join(STUB_DIR, 'stub.py')],
      env: stubEnv(STUB_DIR, modelFile),
      cwd: dirname(modelFile),
      stdout: true,
    });
  } catch (err) {
    throw new EngineError('model-unavailable', loadProblem(python, spawnProblem(python, err as Error), []));
  }
}
