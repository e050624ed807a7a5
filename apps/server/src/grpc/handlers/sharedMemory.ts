import { badRequest } from '../../http/errors.ts';
import type { RegionStatus } from '../../http/sharedMemory.ts';
import type { Studio } from '../../http/Studio.ts';
import type { ProtoMessage } from '../loadService.ts';
import type { UnaryBody } from './info.ts';

/** A uint64 field as proto-loader hands it over (a decimal string), as a number; past 2^53 it fails the bounds checks. */
function uint64(v: unknown): number {
  const n = Number(v ?? 0);
  return Number.isSafeInteger(n) && n >= 0 ? n : Number.MAX_SAFE_INTEGER;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** The status response's map of regions, keyed by name (`SystemSharedMemoryStatusResponse.regions`). */
const regionsOf = (list: RegionStatus[]) => ({ regions: Object.fromEntries(list.map((r) => [r.name, r])) });

/**
 * Triton's shared memory RPCs, on the regions the HTTP endpoint uses too (sharedMemory.ts): system memory
 * registered, listed and unregistered (registering and unregistering need `--allow-client-shm`); CUDA memory lists
 * none and is refused as a Triton without GPUs refuses it.
 * @example const h = sharedMemoryHandlers(studio); h.SystemSharedMemoryStatus({ name: '' })
 */
export function sharedMemoryHandlers(studio: Studio): Record<string, UnaryBody> {
  const shm = studio.sharedMemory;
  return {
    SystemSharedMemoryStatus: (req: ProtoMessage) => regionsOf(shm.status(text(req.name))),
    SystemSharedMemoryRegister: (req: ProtoMessage) => {
      shm.register(text(req.name), text(req.key), uint64(req.offset), uint64(req.byte_size));
      return {};
    },
    SystemSharedMemoryUnregister: (req: ProtoMessage) => {
      shm.unregister(text(req.name));
      return {};
    },
    CudaSharedMemoryStatus: (req: ProtoMessage) => regionsOf(shm.cudaStatus(text(req.name))),
    CudaSharedMemoryRegister: (req: ProtoMessage) => {
      throw badRequest(`failed to register CUDA shared memory region: '${text(req.name)}', GPUs not supported`);
    },
    CudaSharedMemoryUnregister: () => {
      shm.assertAllowed();
      return {};
    },
  };
}
