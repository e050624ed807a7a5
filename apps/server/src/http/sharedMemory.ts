import { closeSync, constants, fstatSync, openSync, read, write } from 'node:fs';
import { join } from 'node:path';
import { ApiError, badRequest } from './errors.ts';

// Triton's system shared memory extension: a client names a POSIX shared memory object (`shm_open`'s key, a file
// under /dev/shm on Linux), registers a window of it as a region, and then sends inputs and receives outputs
// through the region instead of in the request and the response. Triton maps the window; Node cannot map memory,
// so a region keeps its file open and a request reads and writes its window with positioned reads and writes (on
// libuv's pool, off the event loop). Off unless the server is started with `--allow-client-shm`, as in Triton.

/** Triton's message when client shared memory is off (`--allow-client-shm=true` in Triton). */
const CLIENT_SHM_DISABLED =
  "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.";
/** Keys Triton keeps for its Python backend's own regions. */
const RESERVED_PREFIX = 'triton_python_backend_shm_region_';

/** One region as Triton's status reports it. */
export interface RegionStatus {
  name: string;
  key: string;
  offset: number;
  byte_size: number;
}

interface Region extends RegionStatus {
  fd: number;
  /** Requests holding a window of the region: its file closes when the last one is done after an unregister. */
  users: number;
  unregistered: boolean;
}

/** What a request holds of a region: `byteSize` bytes from `offset` within it, until `release`. */
export interface RegionWindow {
  readonly region: string;
  readonly byteSize: number;
  /** Reads the whole window, into `into` when given (a tensor's own bytes: no copy after). */
  read(into?: Uint8Array): Promise<Uint8Array>;
  /** Writes `bytes` at the window's start. */
  write(bytes: Uint8Array): Promise<void>;
  release(): void;
}

/** The server's registered system shared memory regions. */
export class SharedMemoryRegions {
  private readonly regions = new Map<string, Region>();

  constructor(
    readonly allowClient: boolean,
    private readonly dir = '/dev/shm',
    private readonly maxRegions = 1024,
  ) {}

  /** Registers `byteSize` bytes of the object `key` from `offset` as `name` (Triton's `RegisterSystemSharedMemory`). */
  register(name: string, key: string, offset: number, byteSize: number): void {
    this.assertAllowed();
    if (name === '') throw badRequest("'region name' is necessary to register system shared memory region");
    const base = key.replace(/^\/+/, '');
    if (base === '') throw badRequest(`cannot register shared memory region '${name}' - invalid shm key '${key}'`);
    if (base.startsWith(RESERVED_PREFIX))
      throw badRequest(
        `cannot register shared memory region '${name}' with key '${key}' as the key contains the reserved prefix '${RESERVED_PREFIX}'`,
      );
    if (this.regions.has(name))
      throw new ApiError(400, 'already-exists', `shared memory region '${name}' already in manager`);
    if (this.regions.size >= this.maxRegions)
      throw new ApiError(
        400,
        'limit',
        `cannot register shared memory region '${name}': ${this.maxRegions} are registered, the most this server keeps`,
      );
    const fd = openObject(this.dir, base, key);
    try {
      const stat = fstatSync(fd);
      // A FIFO or a device under /dev/shm is no shared memory object: reading it could block a thread for good.
      if (!stat.isFile()) throw new ApiError(500, 'internal', `Invalid shared memory region: '${key}'`);
      if (offset + byteSize > stat.size)
        throw badRequest(`failed to register shared memory region '${name}': invalid args`);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    this.regions.set(name, { name, key, offset, byte_size: byteSize, fd, users: 0, unregistered: false });
  }

  /** Every region, or `name` alone (Triton's `GetStatus` for system memory). */
  status(name = ''): RegionStatus[] {
    if (name === '') return [...this.regions.values()].map(statusOf);
    const r = this.regions.get(name);
    if (!r) throw new ApiError(404, 'not-found', `Unable to find system shared memory region: '${name}'`);
    return [statusOf(r)];
  }

  /**
   * Unregisters `name`, or every region when empty; an unknown name is no error (as in Triton). A region in use by a
   * request keeps its file open until that request is done.
   */
  unregister(name = ''): void {
    this.assertAllowed();
    for (const r of name === '' ? [...this.regions.values()] : [this.regions.get(name)]) {
      if (!r) continue;
      this.regions.delete(r.name);
      r.unregistered = true;
      if (r.users === 0) closeSync(r.fd);
    }
  }

  /**
   * `byteSize` bytes from `offset` in region `name`, for one request (Triton's `GetMemoryInfo`), with its checks and
   * messages.
   * @throws ApiError 404 for an unknown region, 400 for a window outside it.
   */
  window(name: string, offset: number, byteSize: number): RegionWindow {
    const r = this.regions.get(name);
    if (!r) throw new ApiError(404, 'not-found', `Unable to find shared memory region: '${name}'`);
    if (offset >= r.byte_size) throw badRequest(`Invalid offset for shared memory region: '${name}'`);
    if (offset + byteSize > r.byte_size)
      throw badRequest(`Invalid offset + byte size for shared memory region: '${name}'`);
    r.users++;
    let released = false;
    const at = r.offset + offset;
    return {
      region: name,
      byteSize,
      read: (into = new Uint8Array(byteSize)) => readAt(r, at, into),
      write: (bytes) => writeAt(r, at, bytes),
      release: () => {
        if (released) return;
        released = true;
        if (--r.users === 0 && r.unregistered) closeSync(r.fd);
      },
    };
  }

  /**
   * CUDA shared memory's status on a server without GPUs (Triton's `GetStatus` for GPU memory): none listed; a name
   * is unknown, or a system region's.
   * @throws ApiError 404 with Triton's message when `name` is given.
   */
  cudaStatus(name: string): RegionStatus[] {
    if (name === '') return [];
    if (this.regions.has(name))
      throw new ApiError(
        404,
        'not-found',
        `The region named '${name}' is registered as system shared memory, not CUDA shared memory`,
      );
    throw new ApiError(404, 'not-found', `Unable to find cuda shared memory region: '${name}'`);
  }

  /** Closes every region's file (the server is stopping). */
  close(): void {
    for (const r of this.regions.values()) {
      r.unregistered = true;
      if (r.users === 0) closeSync(r.fd);
    }
    this.regions.clear();
  }

  /** @throws ApiError 501 with Triton's message unless clients may register regions. */
  assertAllowed(): void {
    if (!this.allowClient) throw new ApiError(501, 'unsupported', CLIENT_SHM_DISABLED);
  }
}

const statusOf = (r: Region): RegionStatus => ({ name: r.name, key: r.key, offset: r.offset, byte_size: r.byte_size });

/** `shm_open(key, O_RDWR)`: the object's file under `dir`; a key naming anything but one file there cannot be opened. */
function openObject(dir: string, base: string, key: string): number {
  const unopenable = () => new ApiError(500, 'internal', `Unable to open shared memory region: '${key}'`);
  // shm_open refuses a name with a slash after the leading ones: nothing outside the directory is reachable.
  if (base.includes('/') || base === '.' || base === '..' || base.includes('\0')) throw unopenable();
  try {
    return openSync(join(dir, base), constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    throw unopenable();
  }
}

function readAt(r: Region, position: number, buf: Uint8Array): Promise<Uint8Array> {
  const length = buf.byteLength;
  return new Promise((resolve, reject) => {
    const step = (done: number): void => {
      if (done === length) return resolve(buf);
      read(r.fd, buf, done, length - done, position + done, (err, n) => {
        if (err)
          return reject(new ApiError(500, 'internal', `cannot read shared memory region '${r.name}': ${err.message}`));
        // The object shrank under the region: Triton would fault on the missing pages.
        if (n === 0)
          return reject(
            new ApiError(500, 'internal', `shared memory region '${r.name}' is shorter than it was registered`),
          );
        step(done + n);
      });
    };
    step(0);
  });
}

function writeAt(r: Region, position: number, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (done: number): void => {
      if (done === bytes.byteLength) return resolve();
      write(r.fd, bytes, done, bytes.byteLength - done, position + done, (err, n) => {
        if (err)
          return reject(new ApiError(500, 'internal', `cannot write shared memory region '${r.name}': ${err.message}`));
        step(done + n);
      });
    };
    step(0);
  });
}
