// What a signed scenario zone may hold beyond dnssec-signzone's own output: CDS/CDNSKEY records made
// from the zone's keys with BIND's tools, DS for foreign DNSKEYs, a deliberate gap in the NSEC or
// NSEC3 chain, and RRSIGs taken away.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { keyTag, Name, nsec3Covers, nsecCovers, parseZoneFile, recordIs, RRType } from '@app/dns';
import type { CdsMode, RemoveRrsig, SpoilRrsig } from '../scenario/scenario-format.ts';
import { dsFromKey, dsFromZoneFile } from './bind-tools.ts';

/** The key files of a zone, by role. */
export interface RoleKeys {
  kskFiles: string[];
  zskFiles: string[];
  /** A key the zone does not publish (for a mismatched CDNSKEY). */
  unpublishedFile?: string;
}

/** The DNSKEY line of a key file, with its type turned into CDNSKEY. */
async function cdnskeyLine(keyFile: string): Promise<string> {
  const line = (await readFile(keyFile, 'utf8')).split('\n').find((l) => /\sDNSKEY\s/.test(l) && !l.startsWith(';'));
  if (line === undefined) throw new Error(`no DNSKEY in ${keyFile}`);
  return line.replace(/\sDNSKEY\s/, ' CDNSKEY ');
}

/**
 * CDS and CDNSKEY lines for the zone apex: `correct` both for every KSK; `cds-only` and `cdnskey-only`
 * one of the two; `zsk` both for the ZSK; `mismatch` the CDS for the KSK but the CDNSKEY for a key
 * the zone does not publish; `unpublished` both for that key; `delete` the algorithm-0 pair of RFC 8078 §4 (BIND refuses to load a
 * zone where that pair stands beside other CDS/CDNSKEY records).
 */
export async function childKeyLines(origin: string, mode: CdsMode, keys: RoleKeys, digestType: number): Promise<string[]> {
  const deletion = [`${origin} 3600 IN CDS 0 0 0 00`, `${origin} 3600 IN CDNSKEY 0 3 0 AA==`];
  if (mode === 'none') return [];
  if (mode === 'delete') return deletion;
  const cdsFor = async (files: string[]): Promise<string[]> =>
    Promise.all(files.map(async (file) => (await dsFromKey(file, digestType, true)).trim()));
  const cdnskeyFor = async (files: string[]): Promise<string[]> => Promise.all(files.map(cdnskeyLine));
  switch (mode) {
    case 'correct':
      return [...(await cdsFor(keys.kskFiles)), ...(await cdnskeyFor(keys.kskFiles))];
    case 'cds-only':
      return cdsFor(keys.kskFiles);
    case 'cdnskey-only':
      return cdnskeyFor(keys.kskFiles);
    case 'zsk':
      if (keys.zskFiles.length === 0) throw new Error(`${origin}: cds: zsk needs a ZSK (keys: csk has none)`);
      return [...(await cdsFor(keys.zskFiles.slice(0, 1))), ...(await cdnskeyFor(keys.zskFiles.slice(0, 1)))];
    case 'unpublished':
      if (keys.unpublishedFile === undefined) throw new Error('CDS for an unpublished key needs one');
      return [...(await cdsFor([keys.unpublishedFile])), ...(await cdnskeyFor([keys.unpublishedFile]))];
    case 'mismatch':
      if (keys.unpublishedFile === undefined) throw new Error('a mismatched CDNSKEY needs an unpublished key');
      return [...(await cdsFor(keys.kskFiles.slice(0, 1))), ...(await cdnskeyFor([keys.unpublishedFile]))];
  }
}

/** DS lines (the zone's digest type) for the extra DNSKEYs that ask for one, made by dnssec-dsfromkey from a scratch zone file in `dir`. */
export async function extraKeyDs(
  origin: string,
  extra: readonly { rdata: string; ds: boolean }[],
  digestType: number,
  dir: string,
): Promise<string[]> {
  const wanted = extra.filter((key) => key.ds);
  if (wanted.length === 0) return [];
  const file = join(dir, 'extra-dnskeys.zone');
  await writeFile(file, wanted.map((key) => `${origin} 3600 IN DNSKEY ${key.rdata}\n`).join(''));
  return dsFromZoneFile(file, origin, digestType);
}

/** Key tags of the zone's KSKs and ZSKs, for rules that pick RRSIGs by their signer. */
export interface SignerTags {
  ksk: number[];
  zsk: number[];
}

/** An RRSIG line of signed zone text (one record a line, `-O full`) split into fields, `at` the index of its class. */
interface RrsigLine {
  fields: string[];
  at: number;
}

function rrsigLine(line: string): RrsigLine | undefined {
  const fields = line.trim().split(/\s+/);
  const at = fields.indexOf('IN');
  return at >= 0 && fields[at + 1] === 'RRSIG' ? { fields, at } : undefined;
}

/** Whether an RRSIG line is one a rule picks: the type it covers, then owner, algorithm and signer when given. */
function picker(origin: string, rule: RemoveRrsig, tags: SignerTags): (rrsig: RrsigLine) => boolean {
  const originName = Name.fromString(origin);
  const owner =
    rule.owner === undefined
      ? undefined
      : (rule.owner === '@' ? originName : Name.fromString(rule.owner, originName)).toString().toLowerCase();
  return ({ fields, at }) =>
    fields[at + 2]?.toUpperCase() === rule.type &&
    (owner === undefined || fields[0].toLowerCase() === owner) &&
    (rule.algorithm === undefined || Number(fields[at + 3]) === rule.algorithm) &&
    (rule.signer === undefined || tags[rule.signer].includes(Number(fields[at + 8])));
}

/** Applies each rule to the RRSIG lines it picks (`change` returns the new line, or undefined to drop it); a rule that picks nothing is an error. */
function rewriteSignatures<Rule extends RemoveRrsig>(
  signedText: string,
  origin: string,
  rules: readonly Rule[],
  tags: SignerTags,
  change: (rrsig: RrsigLine, rule: Rule) => string | undefined,
): string {
  let lines = signedText.split('\n');
  for (const rule of rules) {
    const picks = picker(origin, rule, tags);
    let picked = 0;
    lines = lines.flatMap((line) => {
      const rrsig = rrsigLine(line);
      if (rrsig === undefined || !picks(rrsig)) return [line];
      picked++;
      const changed = change(rrsig, rule);
      return changed === undefined ? [] : [changed];
    });
    if (picked === 0) throw new Error(`no RRSIG matches ${JSON.stringify(rule)} in ${origin}`);
  }
  return lines.join('\n');
}

/** Removes the RRSIGs the rules pick: for each, those covering its type, at its owner (relative to the zone, `@` the apex), made with its algorithm or by the zone's KSKs or ZSKs, when given. */
export function removeSignatures(signedText: string, origin: string, rules: readonly RemoveRrsig[], tags: SignerTags): string {
  return rewriteSignatures(signedText, origin, rules, tags, () => undefined);
}

/**
 * Spoils the RRSIGs the rules pick (chosen as for removeSignatures): `signature` alters the first
 * byte of the signature, so it no longer verifies; `keytag` names a key tag no DNSKEY of the zone has.
 */
export function spoilSignatures(signedText: string, origin: string, rules: readonly SpoilRrsig[], tags: SignerTags): string {
  const used = new Set(parseZoneFile(signedText, { origin }).flatMap((rr) => (recordIs(rr, RRType.DNSKEY) ? [keyTag(rr.rdata)] : [])));
  return rewriteSignatures(signedText, origin, rules, tags, ({ fields, at }, rule) => {
    const spoilt = [...fields];
    if (rule.spoil === 'keytag') {
      let tag = Number(fields[at + 8]);
      do tag = (tag + 1) % 65536;
      while (used.has(tag));
      spoilt[at + 8] = String(tag);
    } else {
      const signature = Buffer.from(fields.slice(at + 10).join(''), 'base64');
      signature[0] ^= 0xff;
      spoilt.splice(at + 10, spoilt.length, signature.toString('base64'));
    }
    return spoilt.join(' ');
  });
}

/** The owner (lower case, absolute) and type of the NSEC or NSEC3 record in signed zone text that covers `name`. */
function coveringRecord(signedText: string, origin: string, name: string): { owner: string; type: 'NSEC' | 'NSEC3' } {
  const target = Name.fromString(name, Name.fromString(origin));
  const covering = parseZoneFile(signedText, { origin }).find(
    (rr) => (recordIs(rr, RRType.NSEC) && nsecCovers(rr, target)) || (recordIs(rr, RRType.NSEC3) && nsec3Covers(rr, target)),
  );
  if (covering === undefined) throw new Error(`no NSEC or NSEC3 record covers ${target.toString()}`);
  return { owner: covering.name.toString().toLowerCase(), type: covering.type === RRType.NSEC ? 'NSEC' : 'NSEC3' };
}

/**
 * Removes from signed zone text (one record a line) the NSEC or NSEC3 record that covers `name`,
 * with its RRSIGs, so a server answering for that name has to offer a record that does not cover it.
 */
export function removeCoveringDenial(signedText: string, origin: string, name: string): string {
  const { owner, type } = coveringRecord(signedText, origin, name);
  return signedText
    .split('\n')
    .filter((line) => {
      const fields = line.trim().split(/\s+/);
      if (fields[0]?.toLowerCase() !== owner) return true;
      const at = fields.indexOf('IN');
      return !(fields[at + 1] === type || (fields[at + 1] === 'RRSIG' && fields[at + 2] === type));
    })
    .join('\n');
}
