// What every scenario of the bench shares: in the bench's process, the child processes its contenders run in, the
// report, and how many blocks and trials to run; in a child process, what its role set up there (roles.ts).
import { execFileSync } from 'node:child_process';
import type * as ort from 'onnxruntime-node';
import type { GraphDoc, Tensor } from '@ensemble-studio/core';
import type { Engine } from '../src/engine/index.ts';
import { EVENT_LOOP_MODES, type EventLoopMode, describePriority, raiseEventLoop } from '../src/eventLoopPriority.ts';
import type { Repository } from '../src/repo/types.ts';
import type { ContenderProcess } from './contenderProcess.ts';
import type { HostSpeed } from './hostSpeed.ts';
import type { BenchReport } from './report.ts';

/**
 * The bench's child processes, one per contender of a comparison: the engine (`engine_b`: a second one, for
 * comparisons of two engine runs), the direct loop and sessions (`direct`), and two of bare workers.
 */
export type HostName = 'engine' | 'engine_b' | 'direct' | 'bare_a' | 'bare_b';

export interface BenchContext {
  /** The child process `name`, started (its role set up and warm) on first use. */
  host(name: HostName): Promise<ContenderProcess>;
  report: BenchReport;
  log: (line: string) => void;
  quick: boolean;
  /** Blocks per measurement (at least 3). */
  blocks: number;
  /** The host's speed, sampled around the trials of the comparisons it was started for (none where it cannot be). */
  probe?: HostSpeed;
}

/** What every role sets up in its child process (roles.ts). */
export interface Side {
  /** The bench's repository, written by this process into a scratch directory of its own. */
  repo: Repository;
  /** The OCR text image. */
  image: Tensor;
  quick: boolean;
  blocks: number;
  log: (line: string) => void;
}

/** An engine's process. */
export interface EngineSide extends Side {
  engine: Engine;
}

/** The direct loop's process: the same models' sessions, created like the engine's. */
export interface DirectSide extends Side {
  direct: Record<string, ort.InferenceSession>;
}

/**
 * One engine run that must not fail (an early exit is fine).
 * @example await runOk(engine, ocrGraph('gate'), { image });
 */
export async function runOk(
  engine: Engine,
  graph: GraphDoc,
  inputs: Record<string, Tensor>,
  sequence?: { id: number | string; start: boolean; end: boolean },
) {
  const r = await engine.run({ graph, inputs, sequence });
  if (r.status === 'failed') throw new Error(`${graph.name}: ${r.error?.code} ${r.error?.message}`);
  return r;
}

/**
 * A printed-text image (UINT8 HWC) rendered by ImageMagick in DejaVu Sans. Without them there is no image with text
 * to time (a stand-in det finds no text in would time an early exit as OCR), so the bench stops with what to install.
 */
export function textImage(): Tensor {
  const [w, h] = [640, 160];
  let raw: Buffer;
  try {
    raw = execFileSync(
      'convert',
      [
        '-size',
        `${w}x${h}`,
        'xc:white',
        '-fill',
        'black',
        '-font',
        'DejaVu-Sans',
        '-pointsize',
        '48',
        '-annotate',
        '+20+100',
        'Hello World 2024',
        '-depth',
        '8',
        'rgb:-',
      ],
      { maxBuffer: 1 << 24, stdio: ['ignore', 'pipe', 'pipe'] },
    );
  } catch (e) {
    // What convert said; a convert that could not start (not installed) said nothing, and the error says why.
    const why = String((e as { stderr?: Buffer }).stderr ?? '').trim() || (e as Error).message;
    throw new Error(
      `the bench draws its OCR text image with ImageMagick in DejaVu Sans, and could not: ${why}\n` +
        '(`pnpm bench` installs them from Debian; by hand: apt-get install imagemagick fonts-dejavu-core)',
      { cause: e },
    );
  }
  if (raw.length !== w * h * 3) throw new Error(`ImageMagick drew ${raw.length} bytes for a ${w}×${h} RGB text image`);
  return { datatype: 'UINT8', shape: [h, w, 3], data: new Uint8Array(raw) };
}

/** The bench's event-loop setting, as `serve --event-loop` (`STUDIO_EVENT_LOOP`, default `realtime`). */
export function benchEventLoopMode(): EventLoopMode {
  const text = process.env.STUDIO_EVENT_LOOP ?? 'realtime';
  if ((EVENT_LOOP_MODES as readonly string[]).includes(text)) return text as EventLoopMode;
  throw new Error(`STUDIO_EVENT_LOOP expects ${EVENT_LOOP_MODES.join(', ')}, got "${text}"`);
}

/**
 * As `serve` does: raises this process's event-loop thread (`eventLoopPriority.ts`) and says what it got.
 * @example log(`engine: ${await raiseBenchEventLoop()}`)
 */
export async function raiseBenchEventLoop(): Promise<string> {
  return describePriority(await raiseEventLoop(benchEventLoopMode()));
}
