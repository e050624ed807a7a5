import { ApiError, badRequest } from '../http/errors.ts';
import { RequestTrace } from './requestTrace.ts';
import { TraceFile } from './traceFile.ts';
import { TraceSetting, type Specified, type TraceValues } from './traceSetting.ts';

// Triton's trace settings (server:src/tracer.cc, TraceManager): the server's defaults from `--trace-config`, the
// global setting clients change, and a setting per model that follows the global one in every value it was not given.

/** What an update asks for: a new value, `null` to clear one (it follows the global setting again), or nothing. */
export type NewSetting = { [K in 'level' | 'rate' | 'count' | 'logFrequency']?: number | null };

/** The settings as Triton's trace extension reports them (HTTP's JSON; gRPC's lists carry the same strings). */
export interface TraceSettingsJson {
  trace_level: string[];
  trace_rate: string;
  trace_count: string;
  log_frequency: string;
  trace_file: string;
  trace_mode: 'triton';
}

const NONE: Specified = { level: false, rate: false, count: false, logFrequency: false, file: false };

export class TraceSettings {
  private readonly files = new Map<string, TraceFile>();
  private readonly defaults: TraceSetting;
  private global: TraceSetting;
  private readonly models = new Map<string, TraceSetting>();
  /** Models whose setting follows the global one in some value. */
  private readonly following = new Set<string>();
  /** The last trace id given (ids count from 1 across the server, children included). */
  private lastId = 0;

  constructor(
    values: TraceValues,
    private readonly onError: (message: string) => void = () => undefined,
  ) {
    this.defaults = new TraceSetting(values, NONE, this.file(values.file));
    this.global = new TraceSetting(values, NONE, this.file(values.file));
  }

  /** Whether any setting traces: the only question a request asks when none does. */
  get active(): boolean {
    if (this.global.valid) return true;
    for (const s of this.models.values()) if (s.valid) return true;
    return false;
  }

  /** A trace for this request to `model` when its setting samples it (one in `rate`, while its count lasts). */
  start(model: string): RequestTrace | undefined {
    const setting = this.settingOf(model);
    if (!setting.sample()) return undefined;
    return new RequestTrace(setting, ++this.lastId, () => ++this.lastId);
  }

  /** The setting a request to `model` is sampled under. */
  settingOf(model: string): TraceSetting {
    return this.models.get(model) ?? this.global;
  }

  /** `model`'s setting (the global one without a model) as Triton reports it. */
  json(model?: string): TraceSettingsJson {
    const s = model ? this.settingOf(model) : this.global;
    const v = s.values;
    return {
      trace_level: v.level === 0 ? ['OFF'] : levelNames(v.level),
      trace_rate: String(v.rate),
      trace_count: String(s.count),
      log_frequency: String(v.logFrequency),
      trace_file: v.file,
      trace_mode: 'triton',
    };
  }

  /**
   * Applies an update to `model`'s setting (the global one without a model), as Triton's `UpdateTraceSetting`: each
   * value given replaces the setting's, `null` makes it follow the global setting again, and a global update reaches
   * every model value that follows it. A model left with no value of its own follows the global setting whole.
   * @throws ApiError 400 when the result would be an invalid setting that still traces.
   */
  update(model: string | undefined, change: NewSetting): void {
    this.updateOne(model, change);
    if (model === undefined) for (const name of [...this.following]) this.updateOne(name, {});
  }

  /** Writes every trace held and closes the trace files (at shutdown). */
  async close(): Promise<void> {
    this.global.flush();
    for (const s of this.models.values()) s.flush();
    await Promise.all([...this.files.values()].map((f) => f.close()));
  }

  private updateOne(model: string | undefined, change: NewSetting): void {
    const current = model === undefined ? this.global : this.models.get(model);
    const fallback = model === undefined ? this.defaults : this.global;
    const keep = (key: keyof NewSetting) =>
      change[key] === null ? false : (current?.specified[key] ?? false) || change[key] !== undefined;
    const specified: Specified = {
      level: keep('level'),
      rate: keep('rate'),
      count: keep('count'),
      logFrequency: keep('logFrequency'),
      file: current?.specified.file ?? false,
    };
    const pick = (key: keyof NewSetting, own: number | undefined, inherited: number) =>
      specified[key] ? (typeof change[key] === 'number' ? change[key] : (own ?? inherited)) : inherited;
    const values: TraceValues = {
      level: pick('level', current?.values.level, fallback.values.level),
      rate: pick('rate', current?.values.rate, fallback.values.rate),
      count: pick('count', current?.count, fallback.count),
      logFrequency: pick('logFrequency', current?.values.logFrequency, fallback.values.logFrequency),
      file: specified.file ? current!.values.file : fallback.values.file,
    };
    if (model !== undefined) {
      const all = Object.values(specified).every(Boolean);
      if (!Object.values(specified).some(Boolean)) {
        this.models.get(model)?.retire();
        this.models.delete(model);
        this.following.delete(model);
        return;
      }
      if (all) this.following.delete(model);
      else this.following.add(model);
    }
    const next = new TraceSetting(values, specified, this.file(values.file));
    if (!next.valid && values.level !== 0)
      throw badRequest(`Attempting to set invalid trace setting :${next.invalidReason ?? ''}`);
    current?.retire();
    if (model === undefined) this.global = next;
    else this.models.set(model, next);
  }

  private file(name: string): TraceFile {
    let f = this.files.get(name);
    if (!f) this.files.set(name, (f = new TraceFile(name, this.onError)));
    return f;
  }
}

/** The level bits as Triton names them. */
function levelNames(level: number): string[] {
  return [...(level & 1 ? ['TIMESTAMPS'] : []), ...(level & 2 ? ['TENSORS'] : [])];
}

/** Triton's refusal of a trace file named over the network (UNSUPPORTED). */
export function fileFixed(): ApiError {
  return new ApiError(501, 'unsupported', 'trace file location can not be updated through network protocol');
}
