import type { ModelConfig } from '@ensemble-studio/core';
import { EngineError } from '../../errors.ts';
import { InstancePool } from '../../InstancePool.ts';
import type { BackendCall, BackendReply, ModelBackend } from '../modelBackend.ts';
import { copyStamps } from '../../computeStamps.ts';
import { PythonInstance } from './PythonInstance.ts';
import type { PythonSpec } from './pythonSpec.ts';
import type { PyExecute, PyExecuteResult, PyRequest } from './pythonTypes.ts';

const FLAG_START = 1;
const FLAG_END = 2;

/**
 * The Python backend: one python3 process per instance running the model's own `model.py`. A dynamic
 * batch reaches `execute` as a list of requests; a sequence's requests carry its correlation id and
 * START/END flags; a decoupled model's responses stream through the call's `respond`.
 */
export class PythonBackend implements ModelBackend {
  readonly pool: InstancePool<PyExecute, PyExecuteResult>;
  readonly concatenates = false;
  readonly fusable = false;
  readonly notices: string[] = [];

  constructor(
    name: string,
    count: number,
    spec: PythonSpec,
    private readonly config: ModelConfig,
  ) {
    // One request per process at a time: a second one queued behind an execute that waits on a BLS call could deadlock it.
    this.pool = new InstancePool({
      name,
      count,
      pipelineDepth: 1,
      create: (inst, onCrash) => new PythonInstance(inst, spec, onCrash),
    });
    const env = config.parameters?.EXECUTION_ENV_PATH;
    if (env) {
      const path =
        typeof env === 'object' && env !== null && 'string_value' in env
          ? String((env as { string_value: unknown }).string_value)
          : String(env);
      this.notices.push(
        `model '${name}' sets EXECUTION_ENV_PATH (${path}): custom execution environments are not supported locally; it runs with the studio's python interpreter (${spec.python})`,
      );
    }
  }

  get decoupled(): boolean {
    return this.config.model_transaction_policy?.decoupled === true;
  }

  async call(c: BackendCall): Promise<BackendReply> {
    const [reply] = await this.callMany([c]);
    if (reply instanceof Error) throw reply;
    return reply!;
  }

  /** One `execute` for all of `cs`; each request's reply, or the error that failed it alone. */
  async callMany(cs: BackendCall[]): Promise<(BackendReply | Error)[]> {
    const first = cs[0]!;
    const requests = cs.map((c): PyRequest => ({
      inputs: c.inputs,
      ...(c.sequence
        ? { correlationId: c.sequence.id, flags: (c.sequence.start ? FLAG_START : 0) | (c.sequence.end ? FLAG_END : 0) }
        : {}),
      ...(c.respond ? { onResponse: c.respond } : {}),
      ...(c.onLog ? { onLog: c.onLog } : {}),
    }));
    const signal = cs.length === 1 ? first.signal : undefined;
    const running = this.pool.run({ requests, ...(signal ? { signal } : {}) }, [], {
      signal,
      pin: first.pin,
      requests: cs.length,
    });
    const r = await running;
    return r.result.results.map((res): BackendReply | Error => {
      if (!res.ok) return res.error;
      const responses = res.responses;
      const base = copyStamps<Omit<BackendReply, 'outputs'>>(
        { instance: r.instance, queueNs: r.queueNs, computeNs: r.result.computeNs, startNs: r.startNs },
        r.result,
      );
      if (this.decoupled) return { ...base, outputs: responses.at(-1) ?? {}, responses };
      if (responses.length !== 1)
        return new EngineError(
          'node-failed',
          `model '${this.config.name}' sent ${responses.length} responses for one request`,
        );
      return { ...base, outputs: responses[0]! };
    });
  }
}
