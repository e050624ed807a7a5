import type { Frame, FrameTensor } from './frames.ts';
import { REGION_MIN_TENSOR_BYTES, RegionFile } from './sharedRegion.ts';

/** Header fields of a stub's frames that list tensors which may lie in its region. */
const TENSOR_LISTS = ['outputs', 'inputs'];

/**
 * One instance's two region files (PROTOCOL.md, "Large tensors"): Node writes large `execute` inputs into one,
 * the stub writes large outputs and BLS inputs into the other. Inactive (everything through the pipes) when the
 * files cannot be made or the stub could not open them.
 * @example const r = TensorRegions.open('/dev/shm', 'm_0'); send({ type: 'init', shm: r.initField() })
 */
export class TensorRegions {
  private active = false;
  /** Offsets in the stub's region that Node has read and the stub may reuse. */
  private readBack: number[] = [];

  private constructor(
    private readonly toPy: RegionFile | undefined,
    private readonly fromPy: RegionFile | undefined,
    private readonly maxBytes = 0,
  ) {}

  /** Makes the two files in `dir`, each holding at most `maxBytes` at once (when the directory can hold them). */
  static open(dir: string | undefined, label: string, maxBytes = 0): TensorRegions {
    if (dir === undefined) return new TensorRegions(undefined, undefined);
    const toPy = RegionFile.create(dir, `${label}-in`, maxBytes);
    const fromPy = toPy && RegionFile.create(dir, `${label}-out`, maxBytes);
    if (toPy && !fromPy) toPy.close();
    return fromPy ? new TensorRegions(toPy, fromPy, maxBytes) : new TensorRegions(undefined, undefined);
  }

  /** What `init` tells the stub: the files to open and the smallest tensor worth a region, or null. */
  initField(): { to_python: string; from_python: string; min_bytes: number; max_bytes: number } | null {
    if (!this.toPy || !this.fromPy) return null;
    return {
      to_python: this.toPy.path,
      from_python: this.fromPy.path,
      min_bytes: REGION_MIN_TENSOR_BYTES,
      max_bytes: this.maxBytes,
    };
  }

  /** The stub answered `init` (it has opened the files, or said it could not): the names go. */
  opened(accepted: boolean): void {
    this.toPy?.unlink();
    this.fromPy?.unlink();
    this.active = accepted && this.toPy !== undefined;
    if (!this.active) this.close();
  }

  /** For a FrameWriter: takes a large tensor's bytes into Node's region; its offset, or undefined (the pipe). */
  readonly place = (bytes: Uint8Array): number | undefined =>
    this.active && bytes.byteLength >= REGION_MIN_TENSOR_BYTES ? this.toPy!.put(bytes) : undefined;

  /** The stub has copied these inputs (its `execute` ran): their ranges are free again. */
  free(offsets: number[]): void {
    for (const o of offsets) this.toPy?.free(o);
  }

  /**
   * Reads the frame's region tensors into buffers of their own (handed on as the tensors' data, so later frames
   * never change them) and notes their ranges as read, whatever the frame's fate.
   */
  readFrame(f: Frame): void {
    for (const key of TENSOR_LISTS) {
      const list = f.header[key];
      if (!Array.isArray(list)) continue;
      for (const t of list as FrameTensor[]) {
        if (t.region === undefined) continue;
        if (!this.active) throw new Error(`tensor '${t.name}' lies in a region the stub was not given`);
        this.readBack.push(t.region);
        (f.fromRegion ??= new Map()).set(t, this.fromPy!.read(t.region, t.nbytes));
      }
    }
  }

  /** The stub-region offsets read since the last call (for one `shm_release` frame); empty when none. */
  takeReadBack(): number[] {
    const out = this.readBack;
    this.readBack = [];
    return out;
  }

  /** Closes both files (the process is gone or going). */
  close(): void {
    this.active = false;
    this.toPy?.close();
    this.fromPy?.close();
  }
}
