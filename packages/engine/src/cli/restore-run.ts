// Reading back a run written by --save (see saved-run.ts), checked against its format.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Finding } from '../finding.ts';
import { levels } from '../level.ts';
import type { Exchange } from '../net/network.ts';
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

// What the chain analysis reads of each query; the rest of an exchange is kept as it is.
const exchangeSchema = z.looseObject({
  server: z.string(),
  qname: z.string(),
  qtype: z.number(),
  qclass: z.number(),
  transport: z.enum(['udp', 'tcp']),
  flags: z.record(z.string(), z.unknown()),
  at: z.number(),
  ms: z.number(),
  reply: z.string().optional(),
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
  exchanges: z.array(exchangeSchema),
});

/** The findings and queries of a saved run; a file that is not one is a bad argument. */
export async function restoreRun(
  path: string,
): Promise<{ domain: string; engine: string; savedAt: string; findings: Finding[]; exchanges: Exchange[] }> {
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
    throw new UsageError(
      `${path} is not a saved run: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected content'}`,
    );
  }
  const { domain, engine, savedAt, findings, exchanges } = parsed.data;
  return { domain, engine, savedAt, findings, exchanges };
}
