import type { LogLevel } from './pythonTypes.ts';

/** Longest log line kept; the rest of a longer line is cut and says how much was dropped. */
const MAX_LINE = 4096;
/** Lines passed on per second; a model that prints more has the excess counted and reported once a second. */
const MAX_LINES_PER_SECOND = 200;

/**
 * Turns a process's stdout/stderr chunks into log lines: whole lines only, each at most MAX_LINE
 * characters, at most MAX_LINES_PER_SECOND a second (a model printing megabytes floods nobody;
 * a line says how many were dropped).
 * @example const lines = new LogLines((level, msg) => console.log(level, msg)); lines.push('info', chunk);
 */
export class LogLines {
  private partial: Partial<Record<LogLevel, string>> = {};
  private windowStart = 0;
  private inWindow = 0;
  private dropped = 0;

  constructor(
    private readonly out: (level: LogLevel, message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds a chunk of a stream; complete lines are passed on. */
  push(level: LogLevel, chunk: Buffer): void {
    let text = (this.partial[level] ?? '') + chunk.toString('utf8');
    let nl = text.indexOf('\n');
    while (nl >= 0) {
      this.line(level, text.slice(0, nl));
      text = text.slice(nl + 1);
      nl = text.indexOf('\n');
    }
    // A line that never ends is cut at MAX_LINE rather than held without bound.
    if (text.length > MAX_LINE) {
      this.line(level, text);
      text = '';
    }
    this.partial[level] = text;
  }

  /** Passes one line on (cut to MAX_LINE, rate-limited). */
  line(level: LogLevel, message: string): void {
    const t = this.now();
    if (t - this.windowStart >= 1000) {
      if (this.dropped > 0)
        this.out(
          'warn',
          `(${this.dropped} log lines dropped: the model wrote more than ${MAX_LINES_PER_SECOND} lines a second)`,
        );
      this.windowStart = t;
      this.inWindow = 0;
      this.dropped = 0;
    }
    if (this.inWindow >= MAX_LINES_PER_SECOND) {
      if (this.dropped++ === 0)
        this.out(
          'warn',
          `(the model writes more than ${MAX_LINES_PER_SECOND} log lines a second: the rest of this second's lines are dropped)`,
        );
      return;
    }
    this.inWindow++;
    const text = message.endsWith('\r') ? message.slice(0, -1) : message;
    this.out(
      level,
      text.length > MAX_LINE ? `${text.slice(0, MAX_LINE)}… (${text.length - MAX_LINE} more characters)` : text,
    );
  }

  /** Passes on what is left of unfinished lines (the process ended). */
  flush(): void {
    for (const level of Object.keys(this.partial) as LogLevel[]) {
      const rest = this.partial[level];
      if (rest) this.line(level, rest);
    }
    this.partial = {};
  }
}
