// Waits that double after each failure (with jitter, so agents that lost one database do not
// return to it in step), back to the start after a success.
export class Backoff {
  readonly #firstMs: number;
  readonly #maxMs: number;
  #failures = 0;

  constructor(firstMs = 250, maxMs = 30_000) {
    this.#firstMs = firstMs;
    this.#maxMs = maxMs;
  }

  /** The wait before the next try. */
  next(): number {
    const ms = Math.min(this.#maxMs, this.#firstMs * 2 ** this.#failures);
    this.#failures++;
    return Math.round(ms * (0.75 + Math.random() * 0.5));
  }

  reset(): void {
    this.#failures = 0;
  }
}
