// Built zone files are reused between lab starts (keys, signing and BIND's zone tools are most of a
// start-up). An entry is keyed by the scenario and the builder's own source, and is reused only while
// every signature time meant to lie in the future still does.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import type { Scenario } from '../scenario/scenario-format.ts';
import { buildZones, type BuildProgress, type ZoneSet } from './build-zones.ts';
import { keyStoreListing } from './key-store.ts';

const cacheRoot = join(tmpdir(), 'app-lab-worlds');
const maxAgeMs = 12 * 3600_000;
const evictAfterMs = 48 * 3600_000;

// The builder's own sources, and the scenario loader's (it decides which servers the responder plays).
const builderSources = [import.meta.dirname, join(import.meta.dirname, '../scenario')].flatMap((dir) =>
  readdirSync(dir)
    .sort()
    .map((file) => readFileSync(join(dir, file), 'utf8')),
);
// The key store's listing too: a world built before a key was stored must not outlive it.
const builderVersion = (): string =>
  createHash('sha256').update(builderSources.join('\0')).update(keyStoreListing().join('\0')).digest('hex');

interface Entry {
  createdAt: number;
  reuseForMs: number;
  zoneSet: ZoneSet;
}

/** How long a build stays true: a signature time in the future must not slip into the past. */
export function reuseFor(scenario: Scenario): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
  let limit = maxAgeMs;
  for (const zone of scenario.zones) {
    for (const spec of [zone.dnssec?.inception, zone.dnssec?.expiration]) {
      const match = spec === undefined ? null : /^\+?(\d+)([smhdw]?)$/.exec(spec);
      if (match !== null) limit = Math.min(limit, (Number(match[1]) * (units[match[2] || 's'] ?? 1) * 1000) / 2);
    }
  }
  return limit;
}

const mapPaths = (set: ZoneSet, map: (path: string) => string): ZoneSet => ({
  ...set,
  hintsPath: map(set.hintsPath),
  chaosZoneFiles: Object.fromEntries(Object.entries(set.chaosZoneFiles).map(([name, path]) => [name, map(path)])),
  servers: set.servers.map((server) => ({
    ...server,
    zones: server.zones.map((z) => ({
      ...z,
      file: map(z.file),
      ...(z.kasp && { kasp: { ...z.kasp, keyFiles: z.kasp.keyFiles.map(map) } }),
    })),
  })),
});

async function readEntry(dir: string): Promise<ZoneSet | undefined> {
  try {
    const entry = JSON.parse(await readFile(join(dir, 'entry.json'), 'utf8')) as Entry;
    if (Date.now() - entry.createdAt >= entry.reuseForMs) return undefined;
    return mapPaths(entry.zoneSet, (path) => resolve(dir, path));
  } catch {
    return undefined;
  }
}

export async function cachedZones(scenario: Scenario, progress?: BuildProgress): Promise<ZoneSet> {
  const key = createHash('sha256')
    .update(builderVersion())
    .update(JSON.stringify({ servers: scenario.servers, zones: scenario.zones, bulkZones: scenario.bulkZones }))
    .digest('hex')
    .slice(0, 32);
  const dir = join(cacheRoot, key);
  const cached = await readEntry(dir);
  if (cached !== undefined) {
    progress?.(`zones built earlier reused (${dir})`);
    return cached;
  }
  progress?.(`no zones built earlier for this world: building them once, kept in ${cacheRoot} for up to ${maxAgeMs / 3600_000} h`);

  const building = join(cacheRoot, `.building-${randomBytes(6).toString('hex')}`);
  const built = await buildZones(scenario, building, undefined, progress);
  const entry: Entry = {
    createdAt: Date.now(),
    reuseForMs: reuseFor(scenario),
    zoneSet: mapPaths(built, (path) => relative(building, path)),
  };
  await writeFile(join(building, 'entry.json'), JSON.stringify(entry));
  await evictOld();
  const inPlace = (where: string): ZoneSet => mapPaths(entry.zoneSet, (path) => resolve(where, path));
  if (await renamed(building, dir)) return inPlace(dir);
  // Another lab stored the same world meanwhile: use its copy.
  const theirs = await readEntry(dir);
  if (theirs !== undefined) {
    await rm(building, { recursive: true, force: true });
    return theirs;
  }
  // A stale entry is in the way: move it aside (labs still using it keep their files until
  // eviction), then store ours; if even that races, ours stays where it was built.
  await renamed(dir, join(cacheRoot, `.stale-${randomBytes(6).toString('hex')}`));
  return (await renamed(building, dir)) ? inPlace(dir) : inPlace(building);
}

async function renamed(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch {
    return false;
  }
}

async function evictOld(): Promise<void> {
  for (const name of readdirSync(cacheRoot)) {
    const path = join(cacheRoot, name);
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && Date.now() - info.mtimeMs > evictAfterMs) await rm(path, { recursive: true, force: true });
  }
}
