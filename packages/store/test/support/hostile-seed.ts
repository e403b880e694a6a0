// Which inputs the every-route property test draws, and how a failure says how to draw them again.
// HOSTILE_SEED replays a run; in CI (CI=true) the seed comes from the commit, so a rerun of one commit draws the
// same inputs and a submission cannot fail by chance; on a developer's machine each run draws new ones.
import { execFileSync } from 'node:child_process';
import { createHash, randomInt } from 'node:crypto';
import type fc from 'fast-check';

/** Used in CI when git cannot name the commit (a tarball of the sources). */
const FIXED_CI_SEED = 40;

export interface HostileSeed {
  seed: number;
  /** Where the seed came from, printed beside it. */
  source: string;
}

function commitSeed(): HostileSeed {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { seed: createHash('sha256').update(commit).digest().readInt32BE(0), source: `commit ${commit.slice(0, 12)}` };
  } catch {
    return { seed: FIXED_CI_SEED, source: 'CI without git: the fixed seed' };
  }
}

export function hostileSeed(env: NodeJS.ProcessEnv = process.env): HostileSeed {
  const given = env.HOSTILE_SEED;
  if (given !== undefined && given !== '') {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) throw new Error(`HOSTILE_SEED must be a whole number, not ${given}`);
    return { seed, source: 'HOSTILE_SEED' };
  }
  if (env.CI === 'true' || env.CI === '1') return commitSeed();
  return { seed: randomInt(-(2 ** 31), 2 ** 31), source: 'a fresh random seed' };
}

const FILE = 'packages/store/test/hostile-routes.test.ts';

/**
 * What a failed run prints: the seed, fast-check's path and its shrunk counterexample, and the commands that draw
 * the same inputs again (the whole file, or only this route's failing case).
 */
export function failureReport<T>(what: string, details: fc.RunDetails<T>): string {
  const counterexample = details.counterexample === null ? 'none' : JSON.stringify(details.counterexample, null, 1).slice(0, 3000);
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return [
    `${what}: failed after ${details.numRuns} case(s), shrunk ${details.numShrinks} time(s)`,
    `  seed ${details.seed}, path ${JSON.stringify(details.counterexamplePath)}`,
    `  counterexample (shrunk): ${counterexample}`,
    `  error: ${cause.slice(0, 1500)}`,
    `  replay the run: HOSTILE_SEED=${details.seed} npm test -- ${FILE}   (or: HOSTILE_SEED=${details.seed} npx node --test ${FILE})`,
    `  replay this case only: HOSTILE_SEED=${details.seed} HOSTILE_PATH='${details.counterexamplePath ?? ''}' HOSTILE_ROUTE='${what}' npx node --test ${FILE}`,
  ].join('\n');
}
