// Runs a fused group (fusion.ts) inside a model's worker: its ops and its session, one after the
// other, without handing a tensor back to the main thread in between.
import type * as ort from 'onnxruntime-node';
import type { Tensor, TensorSummary } from '@ensemble-studio/core';
import { conditionHolds } from '../../condition.ts';
import { opImpl, type OpContext } from '../../ops/registry.ts';
import { fromOrtType } from './ortTypes.ts';
import { summarizeTensor } from '../../tensorSummary.ts';
import type { ChainStep, PortableTensor, StageResult, StepSource } from './workerProtocol.ts';

/** A chain step failed: `stage` is its index, `stages` what the steps before it took. */
export class StageFailure extends Error {
  constructor(
    readonly stage: number,
    message: string,
    readonly stages: StageResult[],
  ) {
    super(message);
  }
}

export interface ChainDeps {
  session: Pick<ort.InferenceSession, 'run'> | undefined;
  opContext: () => OpContext;
  toOrt: (t: PortableTensor) => ort.Tensor;
  /** Rejects for a session output the server does not take (over its tensor limits). */
  checkOutputs: (outputs: Record<string, ort.Tensor>) => Promise<void>;
  /** Called when the session returns and steps remain (the request asked to wake the main thread ahead). */
  soon?: () => void;
}

/**
 * Runs `steps` on `feeds`; resolves with the last step's outputs and every step's timing (up to a
 * condition that held, which ends the chain with no outputs), and every step's outputs (`produced`: the worker
 * frees them once its reply is posted).
 */
export async function runChain(
  steps: ChainStep[],
  feeds: Record<string, PortableTensor>,
  summarize: boolean,
  deps: ChainDeps,
): Promise<{ outputs: Record<string, Tensor>; stages: StageResult[]; produced: Record<string, Tensor>[] }> {
  const produced: Record<string, Tensor>[] = [];
  const stages: StageResult[] = [];
  const resolve = (src: StepSource): Tensor | undefined =>
    'feed' in src ? feeds[src.feed] : produced[src.step]?.[src.port];
  for (let k = 0; k < steps.length; k++) {
    const step = steps[k]!;
    const t0 = process.hrtime.bigint();
    let outputs: Record<string, Tensor>;
    let batchSize: number | undefined;
    try {
      const inputs: Record<string, Tensor> = {};
      for (const [port, src] of Object.entries(step.inputs)) {
        const t = resolve(src);
        if (!t) throw new Error(`input '${port}' was not produced by the step before`);
        inputs[port] = t;
      }
      if (step.kind === 'op') {
        const impl = opImpl(step.op);
        if (!impl) throw new Error(`unknown op '${step.op}'`);
        outputs = impl.run(inputs, step.values, deps.opContext());
      } else if (step.kind === 'condition') {
        const { holds, value } = conditionHolds(step.expression, inputs, step.id);
        // A gate passes its inputs on unchanged; one that holds sends nothing.
        if (holds) {
          stages.push({
            computeNs: Number(process.hrtime.bigint() - t0),
            startNs: Number(t0),
            summaries: {},
            exit: value,
          });
          return { outputs: {}, stages, produced };
        }
        outputs = inputs;
      } else {
        if (!deps.session) throw new Error('model session is not loaded');
        const ortFeeds = Object.fromEntries(
          Object.entries(inputs).map(([n, t]) => [n, deps.toOrt(t as PortableTensor)]),
        );
        batchSize = Object.values(inputs)[0]?.shape[0];
        const ortOutputs = await deps.session.run(ortFeeds);
        if (k < steps.length - 1) deps.soon?.();
        await deps.checkOutputs(ortOutputs);
        outputs = fromOrtOutputs(ortOutputs);
      }
    } catch (err) {
      throw new StageFailure(k, err instanceof Error ? err.message.split('\n')[0]! : String(err), stages);
    }
    const computeNs = Number(process.hrtime.bigint() - t0);
    const stage: StageResult = { computeNs, startNs: Number(t0), summaries: summarize ? summarizeAll(outputs) : {} };
    if (batchSize !== undefined) stage.batchSize = batchSize;
    if (step.exports && k < steps.length - 1)
      stage.outputs = Object.fromEntries(
        step.exports.flatMap((p) => {
          const t = outputs[p];
          return t ? [[p, { datatype: t.datatype, shape: [...t.shape], data: t.data }]] : [];
        }),
      );
    stages.push(stage);
    produced.push(outputs);
  }
  return { outputs: produced[produced.length - 1] ?? {}, stages, produced };
}

function fromOrtOutputs(outputs: Record<string, ort.Tensor>): Record<string, Tensor> {
  const out: Record<string, Tensor> = {};
  for (const [name, t] of Object.entries(outputs)) {
    const datatype = fromOrtType(t.type);
    if (!datatype) throw new Error(`output '${name}' has unsupported type ${t.type}`);
    out[name] = { datatype, shape: [...t.dims], data: t.data as Float32Array };
  }
  return out;
}

/**
 * Summaries for the run panel. A thumbnail crosses threads as a typed array (one memcpy) rather than
 * a JS array (cloned element by element, see bench/README.md); `rememberSummary` turns it back on the main thread.
 */
export function summarizeAll(outputs: Record<string, Tensor>): Record<string, TensorSummary> {
  const summaries = Object.fromEntries(Object.entries(outputs).map(([name, t]) => [name, summarizeTensor(t)]));
  for (const s of Object.values(summaries))
    if (s.thumbnail) s.thumbnail.data = Float32Array.from(s.thumbnail.data) as unknown as number[];
  return summaries;
}
