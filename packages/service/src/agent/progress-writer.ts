// Writes a running test's progress as the engine reports it: one write at a time, later reports
// folded into the next write, so a fast engine never queues writes behind a slow database.
export class ProgressWriter {
  readonly #write: (percent: number) => Promise<void>;
  #wanted = 1;
  #written = 1;
  #writing: Promise<void> | undefined;

  constructor(write: (percent: number) => Promise<void>) {
    this.#write = write;
  }

  /** Running tests show 1–99; 100 is written only with the results. */
  report(percent: number): void {
    const value = Math.min(99, Math.max(1, Math.floor(percent)));
    if (value <= this.#wanted) return;
    this.#wanted = value;
    this.#writing ??= this.#flush();
  }

  /** Settles once no write is in flight. */
  idle(): Promise<void> {
    return this.#writing ?? Promise.resolve();
  }

  async #flush(): Promise<void> {
    while (this.#written < this.#wanted) {
      const value = this.#wanted;
      try {
        await this.#write(value);
        this.#written = value;
      } catch {
        // Progress is a hint: a database hiccup waits for the next report instead of retrying here.
        break;
      }
    }
    this.#writing = undefined;
  }
}
