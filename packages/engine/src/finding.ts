import type { Level } from './level.ts';

export type FindingArgs = Record<string, string | number | boolean | null>;

/** One message from a test case: a tag with arguments, at the level the profile gives the tag. */
export interface Finding {
  module: string;
  testcase: string;
  tag: string;
  level: Level;
  args: FindingArgs;
  /** Seconds since the run started. */
  timestamp: number;
}

/** What a test case reports before the profile assigns a level. */
export interface Message {
  tag: string;
  args: FindingArgs;
}
