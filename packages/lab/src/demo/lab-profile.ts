// The `lab` profile: every lab address is in a documentation range (RFC 5737, RFC 3849), so under the default
// profile every report of a lab domain leads with ADDRESS01 errors that say nothing about the scenario. This
// profile is the engine's default with those findings lowered to INFO. It is a file in the repository
// (packages/lab/lab-profile.json), so `dnscheck --profile` with it gives what the demo's service gives;
// test/lab-profile.test.ts keeps it equal to the default profile with these changes.
import { resolve } from 'node:path';

/** What the lab profile changes in the engine's default profile: module, tag, level. */
export const labLevels = [
  ['ADDRESS', 'A01_DOCUMENTATION_ADDR', 'INFO'],
  ['ADDRESS', 'A01_NO_GLOBALLY_REACHABLE_ADDR', 'INFO'],
] as const;

export const LAB_PROFILE = 'lab';

/** The profile file (a profile's test_levels replace the default's whole, so it holds all of them). */
export const labProfilePath = resolve(import.meta.dirname, '../../lab-profile.json');

/** The lines the demo prints first, so nobody reads the lab's addresses as a fault of its domains. */
export function labProfileNotice(profilePath: string): string[] {
  return [
    'Every lab address is in a documentation range (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32), which',
    `the default profile reports as an ADDRESS01 error on every domain. The demo's tests use the "${LAB_PROFILE}" profile (${profilePath}),`,
    'which lowers those findings (A01_DOCUMENTATION_ADDR, A01_NO_GLOBALLY_REACHABLE_ADDR) to INFO; the web interface offers it under Advanced options.',
  ];
}
