// The `lab` profile: every lab address is in a documentation range (RFC 5737, RFC 3849), so under the default
// profile every report of a lab domain leads with ADDRESS01 errors that say nothing about the scenario. This
// profile is the engine's default with those findings lowered to INFO; the demo tests with it and says so.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The engine's default profile, whose levels the lab profile keeps (a profile's test_levels replace the default's whole). */
const defaultProfilePath = resolve(import.meta.dirname, '../../../engine/src/profile/default-profile.json');

/** What the lab profile changes: module, tag, level. */
export const labLevels = [
  ['ADDRESS', 'A01_DOCUMENTATION_ADDR', 'INFO'],
  ['ADDRESS', 'A01_NO_GLOBALLY_REACHABLE_ADDR', 'INFO'],
] as const;

export const LAB_PROFILE = 'lab';

/** Writes lab.json and a backend_config.ini offering it as the public profile `lab` into `dir`; answers both paths. */
export function writeLabProfile(dir: string): { profile: string; config: string } {
  const defaults = JSON.parse(readFileSync(defaultProfilePath, 'utf8')) as { test_levels: Record<string, Record<string, string>> };
  const testLevels = structuredClone(defaults.test_levels);
  for (const [module, tag, level] of labLevels) testLevels[module] = { ...testLevels[module], [tag]: level };
  const profile = join(dir, 'lab.json');
  writeFileSync(profile, `${JSON.stringify({ test_levels: testLevels }, null, 1)}\n`);
  const config = join(dir, 'backend_config.ini');
  writeFileSync(config, `; Written by the demo: the lab profile beside the default one.\n[PUBLIC PROFILES]\n${LAB_PROFILE} = lab.json\n`);
  return { profile, config };
}

/** The lines the demo prints first, so nobody reads the lab's addresses as a fault of its domains. */
export function labProfileNotice(profilePath: string): string[] {
  return [
    'Every lab address is in a documentation range (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32), which',
    `the default profile reports as an ADDRESS01 error on every domain. The demo's tests use the "${LAB_PROFILE}" profile (${profilePath}),`,
    'which lowers those findings (A01_DOCUMENTATION_ADDR, A01_NO_GLOBALLY_REACHABLE_ADDR) to INFO; the web interface offers it under Advanced options.',
  ];
}
