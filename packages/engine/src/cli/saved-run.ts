// A run written by --save and read back by --restore: the findings with their arguments (texts are
// made again when shown, so any locale works), the profile, what was asked, and every query the
// engine sent with the reply it got.
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Finding } from '../finding.ts';
import type { TestInput } from '../input.ts';
import { levels } from '../level.ts';
import type { Exchange } from '../net/network.ts';
import type { Profile } from '../profile/profile.ts';
import { UsageError } from './arguments.ts';

const FORMAT = 'dnscheck-run';
const VERSION = 1;

const findingSchema = z.object({
  module: z.string(),
  testcase: z.string(),
  tag: z.string(),
  level: z.enum(levels),
  args: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  timestamp: z.number(),
});

const savedRunSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  engine: z.string(),
  savedAt: z.string(),
  domain: z.string(),
  // Kept as written: a restore shows findings and needs neither to be valid for a new run.
  input: z.record(z.string(), z.unknown()),
  profile: z.record(z.string(), z.unknown()),
  findings: z.array(findingSchema),
  exchanges: z.array(z.record(z.string(), z.unknown())),
});

export interface SavedRun {
  format: typeof FORMAT;
  version: typeof VERSION;
  engine: string;
  savedAt: string;
  domain: string;
  input: Omit<TestInput, 'profile'> & { only: string[] };
  profile: Profile;
  findings: Finding[];
  exchanges: Exchange[];
}

export async function saveRun(path: string, run: Omit<SavedRun, 'format' | 'version' | 'savedAt'>): Promise<void> {
  const saved: SavedRun = { format: FORMAT, version: VERSION, savedAt: new Date().toISOString(), ...run };
  await writeFile(path, `${JSON.stringify(saved)}\n`);
}

/** The findings of a saved run; a file that is not one is a bad argument. */
export async function restoreRun(path: string): Promise<{ domain: string; findings: Finding[] }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the saved run ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${path} is not a saved run: not JSON`);
  }
  const parsed = savedRunSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${path} is not a saved run: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected content'}`);
  }
  return { domain: parsed.data.domain, findings: parsed.data.findings };
}
