// Reading back a run written by --save (see saved-run.ts), checked against its format.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Finding } from '../finding.ts';
import { levels } from '../level.ts';
import { UsageError } from './arguments.ts';
import { FORMAT, VERSION } from './saved-run.ts';

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

/** The findings of a saved run; a file that is not one is a bad argument. */
export async function restoreRun(path: string): Promise<{ domain: string; engine: string; findings: Finding[] }> {
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
  return { domain: parsed.data.domain, engine: parsed.data.engine, findings: parsed.data.findings };
}
