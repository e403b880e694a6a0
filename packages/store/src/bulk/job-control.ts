// What a running job tells its runner as it goes, and how the runner stops it between two steps.
import type { Progress } from './job-table.ts';

/** Thrown out of a job that must stop: its lease went to another instance, or this one is shutting down. */
export class JobInterrupted extends Error {
  constructor(why: string) {
    super(why);
    this.name = 'JobInterrupted';
  }
}

export interface JobControl {
  /** Records where the job stands and renews its lease; throws JobInterrupted when it must stop there. */
  checkpoint(progress: Progress): Promise<void>;
}
