import type { Tensor } from '@ensemble-studio/core';
import { ApiError } from './errors.ts';
import { fixedSizeData, tensorFromBytes, tensorToBytes } from './kserveTensors.ts';
import { limitMessage } from './limits.ts';
import type { SharedInput, SharedWindowRef } from './kserveTensorParameters.ts';
import type { RegionWindow, SharedMemoryRegions } from './sharedMemory.ts';

/**
 * The shared memory one infer request uses (Triton's system shared memory extension): its inputs' windows, read into
 * its tensors, and its outputs' windows, held until the response has been written to them. Both HTTP and gRPC use it.
 */
export class SharedTensors {
  private readonly held: RegionWindow[] = [];
  private readonly outputs = new Map<string, RegionWindow>();

  /** Whether `name` goes to shared memory. */
  writesOutput(name: string): boolean {
    return this.outputs.has(name);
  }

  /**
   * Writes output `name` into its window, as Triton's allocator does.
   * @throws ApiError 500 with Triton's message when the window is smaller than the output.
   */
  async writeOutput(name: string, t: Tensor): Promise<void> {
    const w = this.outputs.get(name)!;
    const bytes = tensorToBytes(t);
    if (bytes.byteLength > w.byteSize)
      throw new ApiError(
        500,
        'internal',
        `shared memory size specified with the request for output '${name}' (${w.byteSize} bytes) should be at least ${bytes.byteLength} bytes to hold the results`,
      );
    await w.write(bytes);
  }

  /** Writes every output of `outputs` that goes to shared memory (a classified one never does: Triton refuses that). */
  async writeOutputs(outputs: Record<string, Tensor | { raw: Uint8Array }>): Promise<void> {
    for (const [name, t] of Object.entries(outputs))
      if (this.outputs.has(name) && !('raw' in t)) await this.writeOutput(name, t);
  }

  /** Lets the regions go (an unregistered one closes once no request holds it). */
  release(): void {
    for (const w of this.held.splice(0)) w.release();
  }

  hold(w: RegionWindow): RegionWindow {
    this.held.push(w);
    return w;
  }

  holdOutput(name: string, w: RegionWindow): void {
    this.outputs.set(name, this.hold(w));
  }
}

/**
 * Holds the windows a request names — inputs, then outputs, each region checked as Triton checks it when it parses
 * the tensor — and reads its inputs into `inputs`. Nothing when the request names no shared memory.
 * @throws ApiError 404 for an unknown region, 400 for a window outside its region or inputs over `maxBytes` together.
 */
export async function openSharedTensors(
  shm: SharedMemoryRegions,
  sharedInputs: readonly SharedInput[] | undefined,
  outputs: readonly { name: string; shm?: SharedWindowRef }[] | undefined,
  inputs: Record<string, Tensor>,
  maxBytes: number,
): Promise<SharedTensors | undefined> {
  if (!sharedInputs && !outputs?.some((o) => o.shm)) return undefined;
  const s = new SharedTensors();
  try {
    let total = 0;
    const reads: [SharedInput, RegionWindow][] = [];
    for (const input of sharedInputs ?? []) {
      const w = s.hold(shm.window(input.region, input.offset, input.byteSize));
      total += input.byteSize;
      if (total > maxBytes)
        throw new ApiError(
          400,
          'limit',
          limitMessage(`inputs of ${total} bytes in shared memory`, 'maxBodyBytes', maxBytes),
        );
      reads.push([input, w]);
    }
    for (const o of outputs ?? [])
      if (o.shm) s.holdOutput(o.name, shm.window(o.shm.region, o.shm.offset, o.shm.byteSize));
    for (const [input, w] of reads) inputs[input.name] = await readTensor(input, w);
  } catch (err) {
    s.release();
    throw err;
  }
  return s;
}

/**
 * An input's tensor from its window: a fixed-size datatype's bytes read straight into the tensor's array (the main
 * thread copies nothing), BYTES decoded from its length-prefixed elements.
 */
async function readTensor(input: SharedInput, w: RegionWindow): Promise<Tensor> {
  const { name, datatype, shape } = input;
  if (datatype === 'BYTES') return tensorFromBytes(datatype, shape, await w.read(), name);
  const data = fixedSizeData(datatype, shape, w.byteSize, name);
  await w.read(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return { datatype, shape, data };
}
