// Turns a scenario into zone files on disk: each zone with the delegations, glue and DS its children
// need, signed where asked, plus CHAOS zones and the root hints. Runs outside the namespace.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encryptedFront, needsResponder } from '../scenario/load-scenario.ts';
import type { Scenario, ZoneSpec, ZonemdSpec } from '../scenario/scenario-format.ts';
import { chaosZoneText } from './bind-config.ts';
import { childKeyLines, extraKeyDs, removeCoveringDenial, removeSignatures, spoilSignatures } from './dnssec-extras.ts';
import {
  compileZone,
  dsFromKey,
  generateKey,
  readCanonicalRecords,
  signZone,
  type CanonicalRecord,
  type KeyOptions,
} from './bind-tools.ts';
import { storedKey } from './key-store.ts';
import { isAtOrBelow, parentOrigin, spoilDs } from './delegation.ts';
import { reverseName } from './reverse-names.ts';
import { rootHintsText } from './root-hints.ts';
import { signatureTime } from './signature-time.ts';
import { withZonemd, zonemdLines, zonemdPlaceholders } from './zonemd-records.ts';
import type { LabServer, ServedZone } from './world-plan.ts';

interface ZoneKeys {
  keyDir: string;
  /** Published in the zone. */
  keyFiles: string[];
  kskFiles: string[];
  zskFiles: string[];
  /** Given to dnssec-signzone (with `zsk-only` the KSK is published but not among them). */
  signingFiles: string[];
  /** A key the zone does not publish (for a mismatched CDNSKEY). */
  unpublishedFile?: string;
}

interface Delegation {
  ns: string[];
  glue: boolean;
  ds: string[];
}

const fileLabel = (origin: string): string => (origin === '.' ? 'root' : origin.slice(0, -1).replace(/[^a-z0-9.-]/gi, '_'));
const addressType = (address: string): string => (address.includes(':') ? 'AAAA' : 'A');

/** The built zone files of a scenario, independent of any one lab run (so they can be cached). */
export interface ZoneSet {
  servers: LabServer[];
  hintsPath: string;
  /** CHAOS zone file per server name that has a version string. */
  chaosZoneFiles: Record<string, string>;
  /** When the root is signed: DS rdata (`tag algorithm digest-type digest`) for its KSKs, the lab's trust anchor. */
  trustAnchor?: string[];
}

/** What a build tells as it goes: one line per step, and how far each step got. */
export type BuildProgress = (line: string) => void;

/** Counts finished items of a step and says so at every tenth of the way (and at the end). */
function stepCounter(progress: BuildProgress | undefined, what: string, total: number): () => void {
  let done = 0;
  let told = -1;
  return () => {
    done++;
    const tenth = Math.floor((done * 10) / total);
    if (progress === undefined || tenth === told) return;
    told = tenth;
    progress(`${what}: ${done}/${total}`);
  };
}

export async function buildZones(scenario: Scenario, dir: string, now: Date = new Date(), progress?: BuildProgress): Promise<ZoneSet> {
  const zonesDir = join(dir, 'zones');
  await mkdir(zonesDir, { recursive: true });
  const entries = scenario.zones.map((zone, index) => ({ zone, base: join(zonesDir, `${index}-${fileLabel(zone.origin)}`) }));

  const firstEntry = new Map<string, number>();
  entries.forEach(({ zone }, index) => firstEntry.set(zone.origin, firstEntry.get(zone.origin) ?? index));
  const origins = [...firstEntry.keys()];
  const delegated = new Set(scenario.zones.filter((z) => z.delegated && z.origin !== '.').map((z) => z.origin));
  // Worked out once: asked per zone and per server name, it made a catalogue world's build minutes long.
  const children = new Map<string, string[]>();
  for (const child of delegated) {
    const parent = parentOrigin(child, origins);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const childrenOf = (origin: string): string[] => children.get(origin) ?? [];
  const allHostNames = scenario.servers.flatMap(hostNames);

  // The zone as the author wrote it plus its own servers' addresses. BIND reads it once to tell us
  // the apex NS set; for that read only, every possible glue goes in too, since BIND refuses a zone
  // whose NS names below a cut have no address.
  const sources = entries.map(
    ({ zone }) => `$ORIGIN ${zone.origin}\n$TTL 3600\n${zone.text}\n${ownAddresses(zone, childrenOf(zone.origin), scenario).join('\n')}\n`,
  );
  const toSign = entries.filter(({ zone }) => zone.dnssec?.signed === true).length;
  progress?.(`building ${entries.length} zones (${toSign} signed) with BIND's zone tools`);
  const read = stepCounter(progress, 'zones read', entries.length);
  const canonical = await Promise.all(
    entries.map(async ({ zone, base }, index) => {
      const below = childrenOf(zone.origin);
      const glue = allHostNames.filter((name) => below.some((c) => isAtOrBelow(name, c))).flatMap((name) => addressLines(name, scenario));
      await writeFile(`${base}.src`, `${sources[index]}${glue.join('\n')}\n`);
      const records = readCanonicalRecords(await compileZone(zone.origin, `${base}.src`, `${base}.canon`));
      read();
      return records;
    }),
  );

  const keys = new Map<string, ZoneKeys>();
  await Promise.all(
    [...firstEntry].map(async ([origin, index]) => {
      const zoneKeys = await makeZoneKeys(entries[index].zone, dir);
      if (zoneKeys !== undefined) keys.set(origin, zoneKeys);
    }),
  );

  const delegations = new Map<string, Delegation>();
  for (const origin of delegated) {
    const index = firstEntry.get(origin)!;
    const zone = entries[index].zone;
    delegations.set(origin, {
      ns: zone.parent.ns ?? apexNs(canonical[index], origin),
      glue: zone.parent.glue,
      ds: await dsLines(zone, keys.get(origin), join(dir, 'keys', fileLabel(origin))),
    });
  }

  const signedOne = stepCounter(progress, 'zones signed', toSign);
  const files = await Promise.all(
    entries.map(async ({ zone, base }, index) => {
      const additions = parentSide(zone, apexNs(canonical[index], zone.origin), childrenOf(zone.origin), delegations, scenario);
      const zoneKeys = keys.get(zone.origin);
      const signals = await signalLines(zone, keys, scenario);
      const text = `${sources[index]}${[...additions, ...signals].join('\n')}\n`;
      if (zoneKeys !== undefined && zone.dnssec !== undefined && zone.dnssec.signer !== 'lab') {
        await writeFile(`${base}.db`, text);
        signedOne();
      } else if (zoneKeys !== undefined && zone.dnssec !== undefined && zone.dnssec.signed) {
        await writeSignedZone(zone.origin, zone.dnssec, zoneKeys, text, base, now, zone.zonemd);
        signedOne();
      } else if (zone.zonemd.length > 0) {
        await writeFile(`${base}.db`, text);
        const lines = zonemdLines(zone.origin, await compileZone(zone.origin, `${base}.db`, `${base}.zonemd-canon`), zone.zonemd);
        await writeFile(`${base}.db`, `${text}${lines.join('\n')}\n`);
      } else {
        await writeFile(`${base}.db`, text);
      }
      return `${base}.db`;
    }),
  );

  const bulk = await writeBulkZones(scenario.bulkZones ?? [], join(zonesDir, 'bulk'));
  const servers = labServers(
    scenario,
    entries.map(({ zone }, index) => ({ zone, file: files[index] })),
    bulk,
    keys,
  );
  const hintsPath = join(dir, 'root.hints');
  await writeFile(hintsPath, rootHintsText(servers.filter((s) => s.zones.some((z) => z.origin === '.'))));
  const chaosZoneFiles = await writeChaosZones(servers, dir);
  const rootKeys = entries.some(({ zone }) => zone.origin === '.' && zone.dnssec?.signed === true) ? keys.get('.') : undefined;
  const trustAnchor =
    rootKeys === undefined ? undefined : await Promise.all(rootKeys.kskFiles.map(async (file) => dsRdata(await dsFromKey(file, 2))));
  return { servers, hintsPath, chaosZoneFiles, ...(trustAnchor !== undefined && { trustAnchor }) };
}

/** A signed zone's keys, stored per scenario (`keysFrom`) so that every build signs with the same ones; undefined when unsigned. */
async function makeZoneKeys(zone: ZoneSpec, dir: string): Promise<ZoneKeys | undefined> {
  const { dnssec, origin } = zone;
  if (dnssec === undefined) return undefined;
  const keyDir = join(dir, 'keys', fileLabel(origin));
  await mkdir(keyDir, { recursive: true });
  // dnssec-signzone signs with every key whose private half it finds in its key directory, so
  // keys that must not sign live elsewhere.
  const elsewhere = join(keyDir, 'not-signing');
  await mkdir(elsewhere, { recursive: true });
  const kskDir = dnssec.keys === 'zsk-only' ? elsewhere : keyDir;
  const kskFiles: string[] = [];
  const zskFiles: string[] = [];
  // One key set per algorithm, one key at a time (dnssec-keygen avoids tags already in the directory).
  const storeLabel = fileLabel(zone.keysFrom ?? origin);
  const key = (slot: string, into: string, options: KeyOptions): Promise<string> =>
    storedKey(storeLabel, `${slot}-${options.algorithm}-${options.bits ?? 'default'}${options.ksk ? '-ksk' : ''}`, into, origin, () =>
      generateKey(origin, into, options),
    );
  for (const [i, algorithm] of [dnssec.algorithm, ...(dnssec.extraAlgorithm === undefined ? [] : [dnssec.extraAlgorithm])].entries()) {
    const options = { algorithm, bits: i === 0 ? dnssec.bits : undefined };
    kskFiles.push(`${join(kskDir, await key(`ksk${i}`, kskDir, { ...options, ksk: dnssec.sep }))}.key`);
    if (dnssec.keys !== 'csk') zskFiles.push(`${join(keyDir, await key(`zsk${i}`, keyDir, { ...options, ksk: false }))}.key`);
  }
  const unpublished =
    dnssec.cds === 'mismatch' || dnssec.cds === 'unpublished'
      ? join(elsewhere, await key('unpublished', elsewhere, { algorithm: dnssec.algorithm, bits: dnssec.bits, ksk: true }))
      : undefined;
  const keyFiles = [...kskFiles, ...zskFiles];
  return {
    keyDir,
    keyFiles,
    kskFiles,
    zskFiles,
    signingFiles: dnssec.keys === 'zsk-only' ? zskFiles : keyFiles,
    ...(unpublished !== undefined && { unpublishedFile: `${unpublished}.key` }),
  };
}

/** Signs the zone's text with its keys into `${base}.db`, then spoils what the scenario asks to be spoiled. */
async function writeSignedZone(
  origin: string,
  d: NonNullable<ZoneSpec['dnssec']>,
  zoneKeys: ZoneKeys,
  unsignedText: string,
  base: string,
  now: Date,
  zonemd: readonly ZonemdSpec[],
): Promise<void> {
  // Signing again after the digest is made would mend what these spoil, and spoiling after it would break the digest.
  if (zonemd.length > 0 && (d.denialGap !== undefined || d.removeRrsigs.length > 0 || d.spoilRrsigs.length > 0))
    throw new Error(`${origin}: zonemd does not go with denialGap, removeRrsigs or spoilRrsigs`);
  let text = unsignedText;
  if (zonemd.length > 0) text += `${zonemdPlaceholders(origin, zonemd).join('\n')}\n`;
  for (const keyFile of zoneKeys.keyFiles) text += await readFile(keyFile, 'utf8');
  text += `${d.extraDnskeys.map((key) => `${origin} 3600 IN DNSKEY ${key.rdata}`).join('\n')}\n`;
  text += `${(await childKeyLines(origin, d.cds, zoneKeys, d.digestType)).join('\n')}\n`;
  await writeFile(`${base}.unsigned`, text);
  const signing = {
    origin,
    keyDir: zoneKeys.keyDir,
    keyFiles: zoneKeys.signingFiles,
    inception: signatureTime(d.inception, now),
    expiration: signatureTime(d.expiration, now),
    nsec3: d.denial === 'nsec3' ? d.nsec3 : undefined,
    allKeysSignAll: d.keys === 'csk',
  };
  await signZone(`${base}.unsigned`, `${base}.db`, signing);
  if (zonemd.length > 0) {
    // dnssec-signzone (BIND 9.18) cannot make ZONEMD: the digest of the signed zone goes in, and a second pass signs it.
    await writeFile(`${base}.zonemd`, withZonemd(origin, await readFile(`${base}.db`, 'utf8'), zonemd));
    await signZone(`${base}.zonemd`, `${base}.db`, signing);
  }
  let signedText = await readFile(`${base}.db`, 'utf8');
  if (d.denialGap !== undefined) signedText = removeCoveringDenial(signedText, origin, d.denialGap);
  const tags = { ksk: zoneKeys.kskFiles.map(keyFileTag), zsk: zoneKeys.zskFiles.map(keyFileTag) };
  if (d.removeRrsigs.length > 0) signedText = removeSignatures(signedText, origin, d.removeRrsigs, tags);
  if (d.spoilRrsigs.length > 0) signedText = spoilSignatures(signedText, origin, d.spoilRrsigs, tags);
  await writeFile(`${base}.db`, signedText);
}

/** Each server of the scenario with the zone files it serves. */
function labServers(
  scenario: Scenario,
  built: readonly { zone: ZoneSpec; file: string }[],
  bulk: Map<string, ServedZone[]>,
  keys: Map<string, ZoneKeys>,
): LabServer[] {
  const serverSigned = (zone: ZoneSpec): boolean => zone.dnssec !== undefined && zone.dnssec.signer !== 'lab';
  const signedAs = (zone: ZoneSpec): ServedZone['signed'] =>
    zone.dnssec === undefined || !zone.dnssec.signed || serverSigned(zone)
      ? undefined
      : zone.dnssec.denial === 'nsec3'
        ? { nsec3: zone.dnssec.nsec3 }
        : {};
  const kaspOf = (zone: ZoneSpec): ServedZone['kasp'] =>
    serverSigned(zone) ? { keyFiles: keys.get(zone.origin)?.keyFiles ?? [], cds: zone.dnssec?.cds !== 'none' } : undefined;
  for (const zone of built.map((b) => b.zone).filter(serverSigned)) {
    const wanted = zone.dnssec?.signer === 'knot-kasp' ? 'knot' : 'bind';
    for (const name of zone.servers) {
      const server = scenario.servers.find((s) => s.name === name);
      if (server?.implementation !== wanted || needsResponder(server))
        throw new Error(`${zone.origin}: signer ${zone.dnssec?.signer}, but ${name} is not a plain ${wanted} server`);
    }
  }
  return scenario.servers.map((server) => ({
    name: server.name,
    addresses: server.addresses,
    implementation: server.implementation,
    engine: needsResponder(server) ? 'responder' : 'bind',
    behaviour: server.behaviour,
    ...(server.encrypted && { encrypted: { ...server.encrypted, front: encryptedFront(server) as 'native' | 'dnsdist' } }),
    zones: [
      ...built.flatMap(({ zone, file }) =>
        zone.servers.includes(server.name)
          ? [{ origin: zone.origin, file, ...(signedAs(zone) && { signed: signedAs(zone) }), ...(kaspOf(zone) && { kasp: kaspOf(zone) }) }]
          : [],
      ),
      ...(bulk.get(server.name) ?? []),
    ],
  }));
}

/** The CHAOS zone (version.bind and the like) of each BIND server that has a version string. */
async function writeChaosZones(servers: readonly LabServer[], dir: string): Promise<Record<string, string>> {
  const chaosZoneFiles: Record<string, string> = {};
  for (const server of servers) {
    if (server.behaviour.version === undefined || server.implementation !== 'bind') continue;
    const path = join(dir, `chaos-${fileLabel(server.name)}.zone`);
    await writeFile(path, chaosZoneText(server.behaviour.version));
    chaosZoneFiles[server.name] = path;
  }
  return chaosZoneFiles;
}

/** The rdata of a DS record line (`owner [ttl] IN DS tag alg type digest`). */
function dsRdata(line: string): string {
  const fields = line.trim().split(/\s+/);
  return fields.slice(fields.indexOf('DS') + 1).join(' ');
}

/** Generated zones go to disk as they are, a few hundred files at a time; returns each server's share. */
async function writeBulkZones(zones: NonNullable<Scenario['bulkZones']>, dir: string): Promise<Map<string, ServedZone[]>> {
  const byServer = new Map<string, ServedZone[]>();
  if (zones.length === 0) return byServer;
  await mkdir(dir, { recursive: true });
  for (let from = 0; from < zones.length; from += 256) {
    await Promise.all(
      zones.slice(from, from + 256).map(async (zone) => {
        const file = join(dir, `${fileLabel(zone.origin)}.db`);
        await writeFile(file, zone.text);
        for (const server of zone.servers) {
          const list = byServer.get(server) ?? [];
          list.push({ origin: zone.origin, file });
          byServer.set(server, list);
        }
      }),
    );
  }
  return byServer;
}

async function dsLines(zone: ZoneSpec, zoneKeys: ZoneKeys | undefined, dir: string): Promise<string[]> {
  const d = zone.dnssec;
  if (d === undefined || zoneKeys === undefined) return [];
  const extra = [
    ...d.extraDs.map((rdata) => `${zone.origin} 3600 IN DS ${rdata}`),
    ...(await extraKeyDs(zone.origin, d.extraDnskeys, d.digestType, dir)),
  ];
  if (d.ds === 'none') return extra;
  if (d.ds === 'zsk' && zoneKeys.zskFiles.length === 0) throw new Error(`${zone.origin}: ds: zsk needs a ZSK (keys: csk has none)`);
  const lines = await Promise.all((d.ds === 'zsk' ? zoneKeys.zskFiles : zoneKeys.kskFiles).map((file) => dsFromKey(file, d.digestType)));
  return [
    ...(d.ds === 'correct' || d.ds === 'zsk' ? lines : lines.map((line) => spoilDs(line, d.ds as 'wrong-digest' | 'wrong-keytag'))),
    ...extra,
  ];
}

/** The zone's RFC 9615 signals: each child's CDS/CDNSKEY lines, moved to `_dsboot.<child>._signal.<ns>`. */
async function signalLines(zone: ZoneSpec, keys: Map<string, ZoneKeys>, scenario: Scenario): Promise<string[]> {
  const lines: string[] = [];
  for (const signal of zone.signals) {
    const childKeys = keys.get(signal.child);
    const child = scenario.zones.find((z) => z.origin === signal.child)?.dnssec;
    if (childKeys === undefined || child === undefined)
      throw new Error(`${zone.origin}: a signal for ${signal.child}, which is not signed`);
    const owner = `_dsboot.${signal.child}_signal.${signal.ns}`;
    for (const line of await childKeyLines(signal.child, signal.cds, childKeys, child.digestType)) lines.push(line.replace(/^\S+/, owner));
  }
  return lines;
}

/** The key tag in a key file's name (Kzone.+alg+tag.key). */
const keyFileTag = (file: string): number => Number(/\+(\d+)\.key$/.exec(file)?.[1]);

/** NS, DS and glue the parent zone holds for its children (glue also for its own NS names below a cut). */
function parentSide(
  zone: ZoneSpec,
  apexNs: string[],
  children: string[],
  delegations: Map<string, Delegation>,
  scenario: Scenario,
): string[] {
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

/** Address records for lab servers named inside this zone's own (not delegated) part, and PTRs
 * for their addresses when this is a reverse zone that asks for them. */
function ownAddresses(zone: ZoneSpec, children: string[], scenario: Scenario): string[] {
  const own = (name: string): boolean => isAtOrBelow(name, zone.origin) && !children.some((c) => isAtOrBelow(name, c));
  const addresses = zone.addressRecords
    ? scenario.servers
        .flatMap(hostNames)
        .filter(own)
        .flatMap((name) => addressLines(name, scenario))
    : [];
  const pointers = zone.ptrRecords
    ? scenario.servers
        .flatMap((s) => s.addresses.map((a) => [reverseName(a), s.name] as const))
        .filter(([name]) => own(name))
        .map(([name, target]) => `${name} 3600 IN PTR ${target}`)
    : [];
  return [...addresses, ...pointers];
}

function apexNs(records: CanonicalRecord[], origin: string): string[] {
  return records.filter((r) => r.owner === origin && r.type === 'NS').map((r) => r.rdata.toLowerCase());
}

/** A server's name and its aliases. */
function hostNames(server: Scenario['servers'][number]): string[] {
  return [server.name, ...server.aliases];
}

function addressLines(name: string, scenario: Scenario): string[] {
  const server = scenario.servers.find((s) => hostNames(s).includes(name));
  return (server?.addresses ?? []).map((address) => `${name} 3600 IN ${addressType(address)} ${address}`);
}
