// Turns a scenario into files on disk: zone files (with delegations, glue and DS added to parents,
// signed where asked), named.conf, CHAOS zones and the root hints. Runs outside the namespace.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { needsResponder } from '../scenario/load-scenario.ts';
import type { Scenario, ZoneSpec } from '../scenario/schema.ts';
import { backendPort, bindConfig, chaosZoneText } from './bind-config.ts';
import { compileZone, dsFromKey, generateKey, readCanonicalRecords, signZone, type CanonicalRecord } from './bind-tools.ts';
import { isAtOrBelow, parentOrigin, spoilDs } from './delegation.ts';
import { rootHintsText } from './root-hints.ts';
import { signatureTime } from './signature-time.ts';
import type { LabServer, WorldPlan } from './world-plan.ts';

interface ZoneKeys {
  keyDir: string;
  keyFiles: string[];
  kskFiles: string[];
}

interface Delegation {
  ns: string[];
  glue: boolean;
  ds: string[];
}

const fileLabel = (origin: string): string => (origin === '.' ? 'root' : origin.slice(0, -1).replace(/[^a-z0-9.-]/gi, '_'));
const addressType = (address: string): string => (address.includes(':') ? 'AAAA' : 'A');

export async function buildWorld(scenario: Scenario, dir: string, now: Date = new Date()): Promise<WorldPlan> {
  const zonesDir = join(dir, 'zones');
  await mkdir(zonesDir, { recursive: true });
  const entries = scenario.zones.map((zone, index) => ({ zone, base: join(zonesDir, `${index}-${fileLabel(zone.origin)}`) }));

  const firstEntry = new Map<string, number>();
  entries.forEach(({ zone }, index) => firstEntry.set(zone.origin, firstEntry.get(zone.origin) ?? index));
  const origins = [...firstEntry.keys()];
  const delegated = new Set(scenario.zones.filter((z) => z.delegated && z.origin !== '.').map((z) => z.origin));
  const childrenOf = (origin: string): string[] => [...delegated].filter((o) => parentOrigin(o, origins) === origin);

  // The zone as the author wrote it plus its own servers' addresses. BIND reads it once to tell us
  // the apex NS set; for that read only, every possible glue goes in too, since BIND refuses a zone
  // whose NS names below a cut have no address.
  const sources = entries.map(({ zone }) => `$ORIGIN ${zone.origin}\n$TTL 3600\n${zone.text}\n${ownAddresses(zone, childrenOf(zone.origin), scenario).join('\n')}\n`);
  const canonical = await Promise.all(
    entries.map(async ({ zone, base }, index) => {
      const glue = scenario.servers.filter((s) => childrenOf(zone.origin).some((c) => isAtOrBelow(s.name, c))).flatMap((s) => addressLines(s.name, scenario));
      await writeFile(`${base}.src`, `${sources[index]}${glue.join('\n')}\n`);
      return readCanonicalRecords(await compileZone(zone.origin, `${base}.src`, `${base}.canon`));
    }),
  );

  const keys = new Map<string, ZoneKeys>();
  await Promise.all(
    [...firstEntry].map(async ([origin, index]) => {
      const dnssec = entries[index].zone.dnssec;
      if (dnssec === undefined) return;
      const keyDir = join(dir, 'keys', fileLabel(origin));
      await mkdir(keyDir, { recursive: true });
      const options = { algorithm: dnssec.algorithm, bits: dnssec.bits };
      const ksk = join(keyDir, await generateKey(origin, keyDir, { ...options, ksk: true }));
      const zsk = dnssec.keys === 'csk' ? [] : [join(keyDir, await generateKey(origin, keyDir, { ...options, ksk: false }))];
      keys.set(origin, { keyDir, keyFiles: [ksk, ...zsk].map((k) => `${k}.key`), kskFiles: [`${ksk}.key`] });
    }),
  );

  const delegations = new Map<string, Delegation>();
  for (const origin of delegated) {
    const index = firstEntry.get(origin)!;
    const zone = entries[index].zone;
    delegations.set(origin, { ns: zone.parent.ns ?? apexNs(canonical[index], origin), glue: zone.parent.glue, ds: await dsLines(zone, keys.get(origin)) });
  }

  const files = await Promise.all(
    entries.map(async ({ zone, base }, index) => {
      const additions = parentSide(zone, apexNs(canonical[index], zone.origin), childrenOf(zone.origin), delegations, scenario);
      const zoneKeys = keys.get(zone.origin);
      let text = `${sources[index]}${additions.join('\n')}\n`;
      if (zoneKeys !== undefined && zone.dnssec !== undefined) {
        for (const keyFile of zoneKeys.keyFiles) text += await readFile(keyFile, 'utf8');
        await writeFile(`${base}.unsigned`, text);
        const d = zone.dnssec;
        await signZone(`${base}.unsigned`, `${base}.db`, {
          origin: zone.origin,
          keyDir: zoneKeys.keyDir,
          keyFiles: zoneKeys.keyFiles,
          inception: signatureTime(d.inception, now),
          expiration: signatureTime(d.expiration, now),
          nsec3: d.denial === 'nsec3' ? d.nsec3 : undefined,
          allKeysSignAll: d.keys === 'csk',
        });
      } else {
        await writeFile(`${base}.full`, text);
        await compileZone(zone.origin, `${base}.full`, `${base}.db`);
      }
      return `${base}.db`;
    }),
  );

  const servers: LabServer[] = scenario.servers.map((server) => ({
    name: server.name,
    addresses: server.addresses,
    engine: needsResponder(server) ? 'responder' : 'bind',
    behaviour: server.behaviour,
    zones: entries.flatMap(({ zone }, index) => (zone.servers.includes(server.name) ? [{ origin: zone.origin, file: files[index] }] : [])),
  }));

  const hintsPath = join(dir, 'root.hints');
  await writeFile(hintsPath, rootHintsText(servers.filter((s) => s.zones.some((z) => z.origin === '.'))));

  const chaosZoneFiles = new Map<string, string>();
  for (const server of servers) {
    if (server.behaviour.version === undefined) continue;
    const path = join(dir, `chaos-${fileLabel(server.name)}.zone`);
    await writeFile(path, chaosZoneText(server.behaviour.version));
    chaosZoneFiles.set(server.name, path);
  }
  const namedConfPath = join(dir, 'named.conf');
  await writeFile(namedConfPath, bindConfig({ dir, hintsPath, servers, chaosZoneFiles }));
  const plan: WorldPlan = { dir, hintsPath, namedConfPath, backendPort, servers, domains: scenario.domains };
  await writeFile(join(dir, 'world.json'), JSON.stringify(plan, null, 2));
  return plan;
}

async function dsLines(zone: ZoneSpec, zoneKeys: ZoneKeys | undefined): Promise<string[]> {
  const d = zone.dnssec;
  if (d === undefined || zoneKeys === undefined || d.ds === 'none') return [];
  const lines = await Promise.all(zoneKeys.kskFiles.map((file) => dsFromKey(file, d.digestType)));
  return d.ds === 'correct' ? lines : lines.map((line) => spoilDs(line, d.ds as 'wrong-digest' | 'wrong-keytag'));
}

/** NS, DS and glue the parent zone holds for its children (glue also for its own NS names below a cut). */
function parentSide(zone: ZoneSpec, apexNs: string[], children: string[], delegations: Map<string, Delegation>, scenario: Scenario): string[] {
  const lines: string[] = [];
  const belowCut = (name: string): boolean => isAtOrBelow(name, zone.origin) && children.some((c) => isAtOrBelow(name, c));
  const glueNames = new Set<string>(apexNs.filter(belowCut));
  for (const child of children) {
    const delegation = delegations.get(child)!;
    for (const ns of delegation.ns) {
      lines.push(`${child} 3600 IN NS ${ns}`);
      if (delegation.glue && belowCut(ns)) glueNames.add(ns);
    }
    lines.push(...delegation.ds);
  }
  for (const name of glueNames) lines.push(...addressLines(name, scenario));
  return lines;
}

/** Address records for lab servers named inside this zone's own (not delegated) part. */
function ownAddresses(zone: ZoneSpec, children: string[], scenario: Scenario): string[] {
  if (!zone.addressRecords) return [];
  return scenario.servers
    .filter((s) => isAtOrBelow(s.name, zone.origin) && !children.some((c) => isAtOrBelow(s.name, c)))
    .flatMap((s) => addressLines(s.name, scenario));
}

function apexNs(records: CanonicalRecord[], origin: string): string[] {
  return records.filter((r) => r.owner === origin && r.type === 'NS').map((r) => r.rdata.toLowerCase());
}

function addressLines(name: string, scenario: Scenario): string[] {
  const server = scenario.servers.find((s) => s.name === name);
  return (server?.addresses ?? []).map((address) => `${name} 3600 IN ${addressType(address)} ${address}`);
}
