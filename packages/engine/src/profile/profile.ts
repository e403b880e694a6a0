// Profiles in the reference JSON format. A loaded profile is laid over a base (the default) the way
// the reference does it: scalar settings and test_cases_vars key by key, test_levels and test_cases whole.
import { isLevel, type Level } from '../level.ts';
import shipped from './default-profile.json' with { type: 'json' };
import extension from './extended-profile.json' with { type: 'json' };

export interface ResolverDefaults {
  timeout: number;
  retry: number;
  retrans: number;
  fallback: boolean;
  edns_size: number;
  dnssec: boolean;
  recurse: boolean;
  usevc: boolean;
  igntc: boolean;
}

export interface Profile {
  net: { ipv4: boolean; ipv6: boolean };
  no_network: boolean;
  resolver: { defaults: ResolverDefaults };
  asn_db: { style: string; sources: Record<string, string[]> };
  /** Lower-case test case ids run when a whole module runs (as in the reference, none is run regardless). */
  test_cases: string[];
  test_cases_vars: Record<string, Record<string, number>>;
  /** MODULE → TAG → level; a tag not listed is DEBUG. */
  test_levels: Record<string, Record<string, Level>>;
}

export class ProfileError extends Error {
  override name = 'ProfileError';
}

const defaults: Profile = shipped as Profile;

export function defaultProfile(): Profile {
  return structuredClone(defaults);
}

/** The profiles the engine ships, by name: `default` runs the reference's test cases, `extended` adds ours beyond them. */
export const profileNames = ['default', 'extended'] as const;
export type ProfileName = (typeof profileNames)[number];

/** The default profile with the test cases beyond the reference (extended-profile.json) and their levels. */
export function extendedProfile(): Profile {
  const profile = defaultProfile();
  profile.test_cases = [...profile.test_cases, ...extension.test_cases];
  profile.test_levels = { ...profile.test_levels, ...(extension.test_levels as Profile['test_levels']) };
  return profile;
}

export function shippedProfile(name: ProfileName): Profile {
  return name === 'extended' ? extendedProfile() : defaultProfile();
}

// Reference keys we accept but have no use for.
const ignoredKeys = new Set(['logfilter', 'asnroots']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expectObject(value: unknown, path: string): Record<string, unknown> {
  if (!isObject(value)) throw new ProfileError(`Profile property ${path} must be an object`);
  return value;
}

function expectBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') throw new ProfileError(`Profile property ${path} must be true or false`);
  return value;
}

function expectNumber(value: unknown, path: string, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new ProfileError(`Profile property ${path} must be a number of at least ${min}`);
  }
  return value;
}

function expectStrings(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new ProfileError(`Profile property ${path} must be an array of strings`);
  }
  return value;
}

function rejectUnknown(object: Record<string, unknown>, known: readonly string[], path: string): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) throw new ProfileError(`Unknown profile property ${path}${key}`);
  }
}

const booleanDefaults = ['fallback', 'dnssec', 'recurse', 'usevc', 'igntc'] as const;
const numericDefaults = { timeout: 1, retry: 1, retrans: 1, edns_size: 0 } as const;

function overlayResolver(target: ResolverDefaults, value: unknown): void {
  const resolver = expectObject(value, 'resolver');
  rejectUnknown(resolver, ['defaults', 'source'], 'resolver.');
  if (resolver.defaults === undefined) return;
  const given = expectObject(resolver.defaults, 'resolver.defaults');
  rejectUnknown(given, [...booleanDefaults, ...Object.keys(numericDefaults), 'debug'], 'resolver.defaults.');
  for (const key of booleanDefaults) {
    if (given[key] !== undefined) target[key] = expectBoolean(given[key], `resolver.defaults.${key}`);
  }
  for (const [key, min] of Object.entries(numericDefaults) as [keyof typeof numericDefaults, number][]) {
    if (given[key] !== undefined) target[key] = expectNumber(given[key], `resolver.defaults.${key}`, min);
  }
}

function readTestLevels(value: unknown): Profile['test_levels'] {
  const modules = expectObject(value, 'test_levels');
  const result: Profile['test_levels'] = {};
  for (const [module, tags] of Object.entries(modules)) {
    const levelsByTag: Record<string, Level> = {};
    for (const [tag, level] of Object.entries(expectObject(tags, `test_levels.${module}`))) {
      if (!isLevel(level))
        throw new ProfileError(`Profile property test_levels.${module}.${tag} is not a severity level: ${String(level)}`);
      levelsByTag[tag] = level;
    }
    result[module.toUpperCase()] = levelsByTag;
  }
  return result;
}

/** Reads a profile (parsed JSON) and lays it over `base`, the default profile unless given. */
export function loadProfile(json: unknown, base: Profile = defaultProfile()): Profile {
  const given = expectObject(json, '(root)');
  const profile = structuredClone(base);
  rejectUnknown(given, ['net', 'no_network', 'resolver', 'asn_db', 'test_cases', 'test_cases_vars', 'test_levels', ...ignoredKeys], '');
  if (given.net !== undefined) {
    const net = expectObject(given.net, 'net');
    rejectUnknown(net, ['ipv4', 'ipv6'], 'net.');
    if (net.ipv4 !== undefined) profile.net.ipv4 = expectBoolean(net.ipv4, 'net.ipv4');
    if (net.ipv6 !== undefined) profile.net.ipv6 = expectBoolean(net.ipv6, 'net.ipv6');
  }
  if (given.no_network !== undefined) profile.no_network = expectBoolean(given.no_network, 'no_network');
  if (given.resolver !== undefined) overlayResolver(profile.resolver.defaults, given.resolver);
  if (given.asn_db !== undefined) {
    const asn = expectObject(given.asn_db, 'asn_db');
    rejectUnknown(asn, ['style', 'sources'], 'asn_db.');
    if (asn.style !== undefined) {
      if (typeof asn.style !== 'string' || !['cymru', 'ripe'].includes(asn.style.toLowerCase())) {
        throw new ProfileError('Profile property asn_db.style must be Cymru or RIPE');
      }
      profile.asn_db.style = asn.style;
    }
    if (asn.sources !== undefined) {
      const sources = expectObject(asn.sources, 'asn_db.sources');
      profile.asn_db.sources = Object.fromEntries(
        Object.entries(sources).map(([style, hosts]) => [style, expectStrings(hosts, `asn_db.sources.${style}`)]),
      );
    }
  }
  if (given.test_cases !== undefined) profile.test_cases = expectStrings(given.test_cases, 'test_cases').map((id) => id.toLowerCase());
  if (given.test_cases_vars !== undefined) {
    for (const [testcase, vars] of Object.entries(expectObject(given.test_cases_vars, 'test_cases_vars'))) {
      const key = testcase.toLowerCase();
      const target = (profile.test_cases_vars[key] ??= {});
      for (const [name, value] of Object.entries(expectObject(vars, `test_cases_vars.${testcase}`))) {
        target[name] = expectNumber(value, `test_cases_vars.${testcase}.${name}`, 1);
      }
    }
  }
  if (given.test_levels !== undefined) profile.test_levels = readTestLevels(given.test_levels);
  return profile;
}

// Tags of our own, which the reference's profile cannot know: their level when a profile does not set one.
const ownLevels: Readonly<Record<string, Record<string, Level>>> = {
  BASIC: { ROOT_SERVERS_UNREACHABLE: 'CRITICAL', ROOT_SERVERS_INTERCEPTED: 'CRITICAL' },
};

export function levelOf(profile: Profile, module: string, tag: string): Level {
  return profile.test_levels[module]?.[tag] ?? ownLevels[module]?.[tag] ?? 'DEBUG';
}

/** Whether the tag is one of the engine's own (not the reference's). */
export function isOwnTag(module: string, tag: string): boolean {
  return ownLevels[module]?.[tag] !== undefined;
}

export function isTestCaseEnabled(profile: Profile, testcase: string): boolean {
  const id = testcase.toLowerCase();
  return profile.test_cases.includes(id);
}
