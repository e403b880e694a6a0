// Writes a running test's progress as the engine reports it: one write at a time, at most one per
// interval, later reports folded into the next write, so a fast engine never queues writes behind a
// slow database. Each write of the indexed progress column leaves a dead row and index entries
// behind: a write per percent took 4 kB of PostgreSQL per test in bench:batch.
const MIN_INTERVAL_MS = 1000;

export class ProgressWriter {
  readonly #write: (percent: number) => Promise<void>;
  readonly #intervalMs: number;
  #wanted = 1;
  #written = 1;
  #writing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastWriteAt = -Infinity;
  #done = false;

  constructor(write: (percent: number) => Promise<void>, intervalMs = MIN_INTERVAL_MS) {
    this.#write = write;
    this.#intervalMs = intervalMs;
  }

  /** Running tests show 1–99; 100 is written only with the results. */
  report(percent: number): void {
    const value = Math.min(99, Math.max(1, Math.floor(percent)));
    if (value <= this.#wanted || this.#done) return;
    this.#wanted = value;
    this.#schedule();
  }

  /** No more writes: a pending one is dropped (the results bring 100); settles once none is in flight. */
  idle(): Promise<void> {
    this.#done = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#writing ?? Promise.resolve();
  }

  #schedule(): void {
    if (this.#writing !== undefined || this.#timer !== undefined || this.#written >= this.#wanted || this.#done) return;
    const wait = this.#lastWriteAt + this.#intervalMs - performance.now();
    if (wait > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#schedule();
      }, wait);
      return;
    }
    this.#writing = this.#flush();
  }

  async #flush(): Promise<void> {
    const value = this.#wanted;
    this.#lastWriteAt = performance.now();
    try {
      await this.#write(value);
      this.#written = value;
    } catch {
      // Progress is a hint: a database hiccup waits for the next report instead of retrying here.
    }
    this.#writing = undefined;
    if (this.#written < this.#wanted) this.#schedule();
  }
}
