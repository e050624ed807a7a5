// The bench's roles: what each of its child processes sets up and which tasks it answers (contenderProcess.ts).
// Each process writes the same repository into a scratch directory of its own and boots its side the same way
// whichever scenarios run; a task's trials then run there, alone in that process.
import { disableOnnxRuntimeTelemetry } from '../src/cli/onnxTelemetry.ts';
import { Engine } from '../src/engine/index.ts';
import type { Repository } from '../src/repo/types.ts';
import { realConfigs, writeEngineRepository } from '../src/testing/engineFixtureRepository.ts';
import { batchingDirectTasks, batchingEngineTasks } from './batching.ts';
import { type Side, raiseBenchEventLoop, textImage } from './context.ts';
import type { Role } from './contenderProcess.ts';
import { directSessions } from './direct.ts';
import { fanoutBareTasks, fanoutDirectTasks, fanoutEngineTasks } from './fanout.ts';
import { lagTasks } from './lag.ts';
import { ocrDirectTasks, ocrEngineTasks } from './ocr.ts';
import { pythonBareSide, pythonEngineSide } from './python.ts';
import { benchScratchDir } from './scratchDir.ts';
import { vadDirectTasks, vadEngineTasks } from './vad.ts';

/** What the bench passes every role. */
export interface RoleOptions {
  quick: boolean;
  blocks: number;
}

const MODELS = ['extractor', 'head', 'accumulator', 'det', 'rec', 'cls', 'vad'];

/**
 * The bench's repository: det gets a second instance for the fan-out branches (one OCR run uses one at a time);
 * vad gets sequence slots for every stream level the ramp may reach, so the ramp measures the engine rather than
 * the slot count.
 */
function benchRepository(): Repository {
  const vadBatching = realConfigs().vad!.sequence_batching!;
  return writeEngineRepository(benchScratchDir('engine-repo-'), MODELS, {
    det: { instance_group: [{ count: 2, kind: 'KIND_CPU' }] },
    vad: { sequence_batching: { ...vadBatching, oldest: { ...vadBatching.oldest, max_candidate_sequences: 2048 } } },
  });
}

function side(o: RoleOptions, log: (line: string) => void): Side {
  disableOnnxRuntimeTelemetry();
  return { repo: benchRepository(), image: textImage(), quick: o.quick, blocks: o.blocks, log };
}

/** An engine over the bench's repository, answering every scenario's engine side. */
export const engineRole: Role<RoleOptions> = async (o, log) => {
  const s = side(o, log);
  // Every VAD stream keeps a run in flight: raise the default limit of 64 concurrent runs past the ramp's top.
  const engine = await Engine.create({ repository: s.repo, maxConcurrentRuns: 8192 });
  log(`engine: ${await raiseBenchEventLoop()}`); // as `serve` does once it is up
  const e = { ...s, engine };
  return {
    tasks: {
      ...ocrEngineTasks(e),
      ...lagTasks(e),
      ...fanoutEngineTasks(e),
      ...batchingEngineTasks(e),
      ...vadEngineTasks(e),
    },
    close: () => engine.close(),
  };
};

/** The same models' onnxruntime sessions (created like the engine's) and TS ops, called in turn on this process's main thread. */
export const directRole: Role<RoleOptions> = async (o, log) => {
  const s = side(o, log);
  const direct = await directSessions(s.repo, MODELS);
  const d = { ...s, direct };
  return {
    tasks: { ...ocrDirectTasks(d), ...fanoutDirectTasks(d), ...batchingDirectTasks(d), ...vadDirectTasks(d) },
    close: async () => void (await Promise.all(Object.values(direct).map((session) => session.release()))),
  };
};

/** Bare worker pairs (the fan-out's ceiling). */
export const bareRole: Role<RoleOptions> = async (o, log) => fanoutBareTasks(side(o, log));

/** An engine over the Python backend's bench models (python.ts), its python processes counted in its usage. */
export const pythonEngineRole: Role<RoleOptions> = (o) => pythonEngineSide(o.quick);

/** Two bare python3 processes on pipes (the Python backend's ceiling). */
export const pythonBareRole: Role<RoleOptions> = async () => pythonBareSide();
