// Workloads for the stress suite: VAD sequence streams and OCR runs over the /ws protocol, with per-chunk results.
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeImage } from '../../apps/server/src/io/image.ts';
import { decodeWav } from '../../apps/server/src/io/wav.ts';
import { ROOT } from './mutate.ts';
import type { Msg, TestSocket } from './wsClient.ts';

const FIXTURES = join(ROOT, 'test/fixtures/generated');
const WINDOW = 512;
const CONTEXT = 64;

/** 576-sample windows (64 samples of context + 512 new) of the speech fixture, from `offset` windows in. */
export function vadChunks(count: number, offset = 0): number[][] {
  const wav = decodeWav(readFileSync(join(FIXTURES, 'speech.wav')));
  const s = wav.samples;
  const out: number[][] = [];
  for (let k = 0; k < count; k++) {
    const start = ((offset + k) * WINDOW) % Math.max(WINDOW, s.length - WINDOW - CONTEXT);
    out.push(Array.from({ length: CONTEXT + WINDOW }, (_, i) => s[start - CONTEXT + i] ?? 0));
  }
  return out;
}

/** The fixture image as a KServe/WS UINT8 HWC tensor. */
export function ocrImage(file = 'hello.png'): { datatype: string; shape: number[]; data: number[] } {
  const t = decodeImage(readFileSync(join(FIXTURES, file)));
  return { datatype: t.datatype, shape: [...t.shape], data: Array.from(t.data as Uint8Array) };
}

let ids = 0;
const terminal = (m: Msg) => ['run.completed', 'run.failed', 'run.exited_early'].includes(m.type);

export interface StreamResult {
  probs: number[];
  chunkMs: number[];
  errors: string[];
  ended: Msg | undefined;
}

/**
 * Streams `chunks` through one `vad-stream` sequence on `c` (all appends sent back to back, the last with end),
 * and returns each chunk's speech probability in chunk order plus each chunk's latency from its send.
 */
export async function streamVad(
  c: TestSocket,
  chunks: number[][],
  opts: { timeoutMs?: number; paceMs?: number } = {},
): Promise<StreamResult> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const streamId = `s${++ids}-${Math.random().toString(36).slice(2, 8)}`;
  const from = c.messages.length;
  c.send({ type: 'stream.open', streamId, graph: 'vad-stream' });
  const sentAt: number[] = [];
  const sendChunk = (i: number) => {
    const data = chunks[i]!;
    sentAt[i] = performance.now();
    c.send({
      type: 'stream.append',
      streamId,
      inputs: { audio: { datatype: 'FP32', shape: [data.length], data } },
      ...(i === chunks.length - 1 ? { end: true } : {}),
    });
  };
  // paceMs: one chunk every paceMs (32 ms = real time for 512 new samples at 16 kHz); otherwise all at once.
  if (!opts.paceMs) chunks.forEach((_, i) => sendChunk(i));
  else {
    let i = 0;
    const t0 = performance.now();
    const tick = () => {
      while (i < chunks.length && performance.now() - t0 >= i * opts.paceMs!) sendChunk(i++);
      if (i < chunks.length && c.isOpen()) setTimeout(tick, Math.max(0, t0 + i * opts.paceMs! - performance.now()));
    };
    tick();
  }
  const probs: number[] = new Array(chunks.length).fill(NaN);
  const chunkMs: number[] = new Array(chunks.length).fill(NaN);
  const errors: string[] = [];
  const runChunk = new Map<string, number>();
  let idx = from;
  let ended: Msg | undefined;
  const deadline = Date.now() + timeoutMs;
  let done = 0;
  while (Date.now() < deadline && (done < chunks.length || !ended)) {
    await c.next(() => true, Math.max(1, deadline - Date.now()), idx).catch(() => undefined);
    for (; idx < c.messages.length; idx++) {
      const m = c.messages[idx]!;
      // a stream's chunks run one after another, so run.started order is chunk order (sequence.chunk comes after the result)
      if (m.type === 'run.started' && m.streamId === streamId) runChunk.set(m.runId, runChunk.size);
      else if (m.type === 'sequence.chunk' && m.streamId === streamId && runChunk.get(m.runId) !== m.chunk)
        errors.push(`run ${m.runId} reported as chunk ${m.chunk}, started as ${runChunk.get(m.runId)}`);
      else if (m.type === 'sequence.ended' && m.streamId === streamId) ended = m;
      else if (m.type === 'error' && m.ref === streamId) errors.push(`${m.error.code}: ${m.error.message}`);
      else if (terminal(m) && runChunk.has(m.runId)) {
        const k = runChunk.get(m.runId)!;
        done++;
        if (m.type !== 'run.completed') {
          errors.push(`chunk ${k}: ${m.type} ${JSON.stringify(m.error ?? '')}`);
          continue;
        }
        const d = m.outputs?.speech_prob?.data as number[] | undefined;
        probs[k] = d?.[0] ?? NaN;
        chunkMs[k] = performance.now() - sentAt[k]!;
      }
    }
    if (!c.isOpen()) break;
  }
  return { probs, chunkMs, errors, ended };
}

/** Runs `ocr` once on `c`; returns the terminal message and the latency. */
export async function runOcr(c: TestSocket, image: unknown, timeoutMs = 120_000): Promise<{ end: Msg; ms: number }> {
  const requestId = `o${++ids}`;
  const from = c.messages.length;
  const t0 = performance.now();
  c.send({ type: 'run.start', requestId, graph: 'ocr', inputs: { image } });
  const started = await c.next(
    (m) => (m.type === 'run.started' && m.requestId === requestId) || (m.type === 'error' && m.ref === requestId),
    timeoutMs,
    from,
  );
  if (started.type === 'error') return { end: started, ms: performance.now() - t0 };
  const end = await c.next((m) => terminal(m) && m.runId === started.runId, timeoutMs, from);
  return { end, ms: performance.now() - t0 };
}

export function percentile(xs: number[], p: number): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function maxAbsDiff(a: number[], b: number[]): number {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return Number.isNaN(m) ? Infinity : m;
}

export const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** Appends one line of figures to the stress report (stdout, and $STRESS_REPORT when set). */
export function report(line: string): void {
  process.stdout.write(`[stress] ${line}\n`);
  const file = process.env.STRESS_REPORT;
  if (file) appendFileSync(file, `${line}\n`);
}
