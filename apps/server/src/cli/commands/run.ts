import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { GraphDoc, InputNode, ServerMessage, Tensor } from '@ensemble-studio/core';
import { fullShape, tensorToJson } from '@ensemble-studio/core';
import { Engine } from '../../engine/index.ts';
import { decodeWav, readInputFile, resample } from '../../io/index.ts';
import { loadRepository } from '../../repo/loadRepository.ts';
import { directoryValue, parseCommandArgs, str, userPath } from '../args.ts';
import { CliError, UsageError } from '../errors.ts';
import type { CliIO } from '../io.ts';
import { resolveTarget } from '../target.ts';
import { sequenceChunks, streamFraming } from '../audioStream.ts';
import { speechSegments } from '../speechSegments.ts';

type RunResult = Awaited<ReturnType<Engine['run']>>;

/** KServe v2 JSON form of output tensors (BYTES as strings). */
export function outputsJson(
  outputs: Record<string, Tensor>,
): Record<string, { datatype: string; shape: number[]; data: (number | string | boolean)[] }> {
  return Object.fromEntries(
    Object.entries(outputs).map(([n, t]) => [n, { datatype: t.datatype, shape: [...t.shape], data: tensorToJson(t) }]),
  );
}

function resultLine(r: RunResult, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'result',
    ...extra,
    runId: r.runId,
    status: r.status,
    outputs: outputsJson(r.outputs),
    timings: r.timings,
    ...(r.exit ? { exit: r.exit } : {}),
    ...(r.error ? { error: r.error } : {}),
  });
}

function parseInputs(specs: string[], graph: GraphDoc): Map<string, { node: InputNode; file: string }> {
  const byName = new Map(graph.nodes.filter((n): n is InputNode => n.kind === 'input').map((n) => [n.params.name, n]));
  const out = new Map<string, { node: InputNode; file: string }>();
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new UsageError(`--input expects NAME=FILE, got "${spec}"`);
    const name = spec.slice(0, eq);
    const node = byName.get(name);
    if (!node)
      throw new UsageError(`graph ${graph.name} has no input "${name}" (inputs: ${[...byName.keys()].join(', ')})`);
    out.set(name, { node, file: userPath(spec.slice(eq + 1)) });
  }
  return out;
}

async function runOnce(
  engine: Engine,
  graph: GraphDoc,
  inputs: Map<string, { node: InputNode; file: string }>,
  timeoutMs: number | undefined,
  exported: boolean,
  io: CliIO,
): Promise<number> {
  const tensors: Record<string, Tensor> = {};
  for (const [name, { node, file }] of inputs) {
    try {
      tensors[name] = await readInputFile(file, {
        datatype: node.params.datatype,
        shape: fullShape(node.params.dims, graph.maxBatchSize),
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why =
        e.code === 'ENOENT'
          ? 'no such file'
          : e.code === 'EACCES'
            ? 'permission denied'
            : e.code === 'EISDIR'
              ? 'it is a directory'
              : e.message;
      throw new CliError(`input '${name}': cannot use ${file}: ${why}`);
    }
  }
  const onEvent = (m: ServerMessage) => io.out(JSON.stringify(m));
  const result = await engine.run({
    graph,
    inputs: tensors,
    onEvent,
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(exported ? { exported } : {}),
  });
  io.out(resultLine(result));
  return result.status === 'failed' ? 1 : 0;
}

/** The value of a run's only output when that is one FP32 number (a VAD's speech probability). */
function oneValue(outputs: Record<string, Tensor>): number | undefined {
  const ts = Object.values(outputs);
  return ts.length === 1 && ts[0]!.datatype === 'FP32' && ts[0]!.data.length === 1
    ? (ts[0]!.data as Float32Array)[0]
    : undefined;
}

/** Silero's speech timestamps over the chunks' probabilities, in samples and seconds. */
function segmentsJson(probs: number[], rate: number, window: number, length: number) {
  return speechSegments(probs, { sampleRate: rate, window, length }).map((s) => ({
    start: s.start,
    end: s.end,
    start_s: Math.round((s.start / rate) * 1000) / 1000,
    end_s: Math.round((s.end / rate) * 1000) / 1000,
  }));
}

async function runSequence(
  engine: Engine,
  graph: GraphDoc,
  inputs: Map<string, { node: InputNode; file: string }>,
  io: CliIO,
): Promise<number> {
  const [entry, ...rest] = [...inputs.values()];
  if (!entry || rest.length > 0) throw new UsageError('--sequence streams exactly one --input NAME=FILE.wav');
  const wav = decodeWav(
    await readFile(entry.file).catch((err: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read ${entry.file}: ${err.code ?? err.message}`);
    }),
  );
  const framing = streamFraming(graph, entry.node);
  let samples = wav.samples;
  if (framing.rate !== undefined && framing.rate !== wav.sampleRate) {
    try {
      samples = resample(samples, wav.sampleRate, framing.rate);
    } catch (err) {
      throw new CliError(`input '${entry.node.params.name}': ${(err as Error).message}`);
    }
    io.err(
      `input '${entry.node.params.name}': ${basename(entry.file)} is ${wav.sampleRate} Hz; resampled to ${framing.rate} Hz, the rate op '${framing.by}' expects`,
    );
  }
  const chunks = sequenceChunks(samples, entry.node, graph.maxBatchSize, framing);
  const id = Math.floor(Math.random() * 1e9) + 1;
  const rate = framing.rate ?? wav.sampleRate;
  const probs: number[] = [];
  let failed = 0;
  for (const [i, t] of chunks.entries()) {
    const sequence = { id, start: i === 0, end: i === chunks.length - 1 };
    const result = await engine.run({
      graph,
      inputs: { [entry.node.params.name]: t },
      sequence,
      onEvent: (m) => io.out(JSON.stringify(m)),
    });
    const prob = oneValue(result.outputs);
    if (prob !== undefined) probs.push(prob);
    const last = i === chunks.length - 1 && probs.length === chunks.length;
    io.out(
      resultLine(result, {
        chunk: i,
        sequenceId: id,
        ...(last ? { speech_segments: segmentsJson(probs, rate, framing.window, samples.length) } : {}),
      }),
    );
    if (result.status === 'failed') {
      failed++;
      break;
    }
  }
  return failed > 0 ? 1 : 0;
}

/**
 * `run NAME|GRAPH.json --repo DIR --input NAME=FILE ... [--sequence] [--timeout MS] [--exported]`: one JSON line
 * per engine event, then `{"type":"result",…}` (per chunk with --sequence; when every chunk's only
 * output is one FP32 number, a speech probability, the last chunk's line also carries
 * `speech_segments` as Silero's get_speech_timestamps finds them). Exit 1 when a run fails.
 * @example await runCommand(['vad-stream', '--input', 'audio=speech.wav', '--sequence'], io)
 */
export async function runCommand(argv: string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(
    argv,
    {
      repo: { type: 'string' },
      input: { type: 'string', multiple: true },
      sequence: { type: 'boolean' },
      timeout: { type: 'string' },
      exported: { type: 'boolean' },
    },
    1,
  );
  const target = positionals[0];
  if (target === undefined) throw new UsageError('run needs a graph: NAME or GRAPH.json');
  const timeout = str(values, 'timeout');
  if (timeout !== undefined && !(Number(timeout) > 0 && Number.isFinite(Number(timeout))))
    throw new UsageError('--timeout expects a positive number of milliseconds');
  const repo = await loadRepository(directoryValue(str(values, 'repo', io.defaultRepo)!, 'repo')).catch(
    (err: NodeJS.ErrnoException) => {
      throw new CliError(`cannot open repository: ${err.code ?? err.message}`);
    },
  );
  const graph = await resolveTarget(repo, target);
  const inputs = parseInputs((values.input as string[] | undefined) ?? [], graph);
  // lazy: only the models this graph uses are loaded (and warmed up) for a one-shot run
  const engine = await Engine.create({ repository: repo, lazy: true });
  try {
    return values.sequence
      ? await runSequence(engine, graph, inputs, io)
      : await runOnce(engine, graph, inputs, timeout ? Number(timeout) : undefined, values.exported === true, io);
  } finally {
    await engine.close();
  }
}
