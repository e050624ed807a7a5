/** Where a command writes, so tests and the real CLI share the commands. */
export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** `--repo` when not given. */
  defaultRepo: string;
}
