// A run written by --save: the findings with their arguments (texts are made again when shown, so
// any locale works), the profile, what was asked, and every query the engine sent with the reply it
// got. Reading one back is restore-run.ts, apart so a run that saves does not load its schema library.
import { writeFile } from 'node:fs/promises';
import type { Finding } from '../finding.ts';
import type { TestInput } from '../input.ts';
import type { Exchange } from '../net/network.ts';
import type { Profile } from '../profile/profile.ts';

export const FORMAT = 'dnscheck-run';
export const VERSION = 1;

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
