// What a signed scenario zone may hold beyond dnssec-signzone's own output: CDS/CDNSKEY records made
// from the zone's keys with BIND's tools, and a deliberate gap in the NSEC or NSEC3 chain.
import { readFile } from 'node:fs/promises';
import { Name, nsec3Covers, nsecCovers, parseZoneFile, recordIs, RRType } from '@app/dns';
import { dsFromKey } from './bind-tools.ts';

export type CdsMode = 'none' | 'correct' | 'mismatch' | 'delete';

/** The DNSKEY line of a key file, with its type turned into CDNSKEY. */
async function cdnskeyLine(keyFile: string): Promise<string> {
  const line = (await readFile(keyFile, 'utf8')).split('\n').find((l) => /\sDNSKEY\s/.test(l) && !l.startsWith(';'));
  if (line === undefined) throw new Error(`no DNSKEY in ${keyFile}`);
  return line.replace(/\sDNSKEY\s/, ' CDNSKEY ');
}

/**
 * CDS and CDNSKEY lines for the zone apex: `correct` both for the KSK; `mismatch` the CDS for the KSK
 * but the CDNSKEY for a key the zone does not publish; `delete` the algorithm-0 pair of RFC 8078 §4.
 */
export async function childKeyLines(origin: string, mode: CdsMode, kskFile: string, unpublishedKeyFile: string | undefined, digestType: number): Promise<string[]> {
  if (mode === 'none') return [];
  if (mode === 'delete') return [`${origin} 3600 IN CDS 0 0 0 00`, `${origin} 3600 IN CDNSKEY 0 3 0 AA==`];
  const cds = (await dsFromKey(kskFile, digestType, true)).trim();
  const keyFile = mode === 'mismatch' ? unpublishedKeyFile : kskFile;
  if (keyFile === undefined) throw new Error('a mismatched CDNSKEY needs an unpublished key');
  return [cds, await cdnskeyLine(keyFile)];
}

/**
 * Removes from signed zone text (one record a line) the NSEC or NSEC3 record that covers `name`,
 * with its RRSIGs, so a server answering for that name has to offer a record that does not cover it.
 */
export function removeCoveringDenial(signedText: string, origin: string, name: string): string {
  const records = parseZoneFile(signedText, { origin });
  const target = Name.fromString(name, Name.fromString(origin));
  const covering = records.find((rr) => (recordIs(rr, RRType.NSEC) && nsecCovers(rr, target)) || (recordIs(rr, RRType.NSEC3) && nsec3Covers(rr, target)));
  if (covering === undefined) throw new Error(`no NSEC or NSEC3 record covers ${target.toString()}`);
  const owner = covering.name.toString().toLowerCase();
  const type = covering.type === RRType.NSEC ? 'NSEC' : 'NSEC3';
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
