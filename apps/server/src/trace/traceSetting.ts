import type { TraceFile } from './traceFile.ts';

// One trace setting as Triton's TraceManager keeps it (server:src/tracer.cc): its values, which of them were given
// (the rest follow the global setting), and what it has sampled and collected. A setting is replaced, never changed,
// when a client updates it, so the traces it sampled finish under it.

/** Trace levels: a bit each, 0 (`OFF`) traces nothing. */
export const TIMESTAMPS = 1;
export const TENSORS = 2;

/** A setting's values (Triton's names in the settings JSON: trace_level, trace_rate, …). */
export interface TraceValues {
  /** TIMESTAMPS | TENSORS bits; 0 is OFF. */
  level: number;
  /** One request in `rate` is traced (a uint32). */
  rate: number;
  /** Traces still to take; -1 without limit. */
  count: number;
  /** Traces a file is written for (`<file>.<n>`); 0: all in `<file>`, written at shutdown. */
  logFrequency: number;
  file: string;
}

/** Which values a setting was given itself (unspecified ones follow the global setting). */
export interface Specified {
  level: boolean;
  rate: boolean;
  count: boolean;
  logFrequency: boolean;
  file: boolean;
}

/** Past this many characters of collected traces, they go to the trace file before shutdown (the file reads the same). */
const MAX_HELD_CHARS = 1 << 20;

export class TraceSetting {
  /** Requests seen (sampled or not). */
  private sampled = 0;
  private collected = 0;
  /** Traces collected since the last write, and their text. */
  private inStream = 0;
  private stream: string[] = [];
  private streamChars = 0;
  /** Replaced by an update: traces that finish now are written at once. */
  private retired = false;
  /** Traces still to take (counts down from `values.count`). */
  private remaining: number;

  constructor(
    readonly values: TraceValues,
    readonly specified: Specified,
    readonly file: TraceFile,
  ) {
    this.remaining = values.count;
  }

  /** Whether it traces: a level, a rate, a file, and traces left to take (Triton's `Valid`). */
  get valid(): boolean {
    return this.invalidReason === undefined && this.remaining !== 0;
  }

  /** Why the setting traces nothing (its count aside), or undefined. */
  get invalidReason(): string | undefined {
    if (this.values.level === 0) return 'tracing is disabled';
    if (this.values.rate === 0) return 'sample rate must be non-zero';
    if (this.values.file === '') return 'trace file name is not given';
    return undefined;
  }

  /** The count as reported: what is left to take. */
  get count(): number {
    return this.remaining;
  }

  /** Counts one request; true when it is to be traced (every `rate`-th, while the count lasts). */
  sample(): boolean {
    if (!this.valid) return false;
    this.sampled++;
    if (this.sampled % this.values.rate !== 0) return false;
    if (this.remaining > 0) this.remaining--;
    return true;
  }

  /**
   * Adds one finished trace's records (their JSON objects joined by commas). Every `logFrequency` traces, or once the
   * count is used up and as many traces are in as requests were counted (Triton's test: so only at rate 1), they are
   * written to the next indexed file, as Triton does.
   */
  write(records: string): void {
    this.collected++;
    // A trace that recorded nothing (a request refused before it ran, at the TENSORS level) counts, and writes nothing.
    if (records !== '') {
      this.stream.push(records);
      this.streamChars += records.length;
      this.inStream++;
    }
    const f = this.values.logFrequency;
    if ((this.remaining === 0 && this.collected === this.sampled) || (f !== 0 && this.inStream >= f)) {
      this.file.saveIndexed(this.takeStream());
    } else if (this.retired || (f === 0 && this.streamChars > MAX_HELD_CHARS)) {
      this.flush();
    }
  }

  /** Writes what is held: to an indexed file with a log frequency, else on to the trace file. */
  flush(): void {
    if (this.inStream === 0) return;
    if (this.values.logFrequency !== 0) this.file.saveIndexed(this.takeStream());
    else this.file.save(this.takeStream());
  }

  /** The setting is replaced: what it holds is written now, and each trace still running as it finishes. */
  retire(): void {
    this.retired = true;
    this.flush();
  }

  private takeStream(): string {
    const text = this.stream.join(',');
    this.stream = [];
    this.streamChars = 0;
    this.inStream = 0;
    return text;
  }
}
