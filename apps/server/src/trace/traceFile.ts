import { appendFile, writeFile } from 'node:fs/promises';

/**
 * A trace file as Triton writes it: `save` appends a group of traces to `<file>` (a JSON array opened at its first
 * write and closed at shutdown); `saveIndexed` writes one to `<file>.<n>` (n from 0, a JSON array each). Writes go
 * out in order, off the event loop; a failed one is reported and the rest go on, as Triton logs and goes on.
 */
export class TraceFile {
  private index = 0;
  private opened = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly onError: (message: string) => void,
  ) {}

  save(traces: string): void {
    const first = !this.opened;
    this.opened = true;
    this.then(() => (first ? writeFile(this.name, `[${traces}`) : appendFile(this.name, `,${traces}`)));
  }

  saveIndexed(traces: string): void {
    const name = `${this.name}.${this.index++}`;
    this.then(() => writeFile(name, `[${traces}]`));
  }

  /** Closes `<file>`'s array (when it was opened) once every write is done. */
  async close(): Promise<void> {
    if (this.opened) this.then(() => appendFile(this.name, ']'));
    this.opened = false;
    await this.chain;
  }

  private then(write: () => Promise<void>): void {
    this.chain = this.chain
      .then(write)
      .catch((err: Error) => this.onError(`failed creating trace file: ${err.message}`));
  }
}
