// DNSSEC records as the module reads them from answers.
import {
  type Name,
  keyTag,
  RRType,
  recordIs,
  type DnskeyData,
  type DnskeyRecord,
  type DsData,
  type Message as DnsMessage,
  type ResourceRecord,
  type RrsigData,
} from '@app/dns';
import { recordsFor, recordsOfType } from '../../net/response.ts';

export const ZONE_KEY = 0x0100;
export const SEP = 0x0001;
export const familyTags = ['IPV4_DISABLED', 'IPV6_DISABLED'] as const;

export type Dnskey = ResourceRecord<DnskeyData>;
export type Rrsig = ResourceRecord<RrsigData>;
export const dnskeysIn = (m: DnsMessage, owner?: Name): Dnskey[] =>
  (owner ? recordsFor(m, RRType.DNSKEY, owner, ['answer']) : recordsOfType(m, RRType.DNSKEY, ['answer'])).filter((rr): rr is Dnskey =>
    recordIs(rr, RRType.DNSKEY),
  );
export const rrsigsIn = (m: DnsMessage, section: 'answer' | 'authority' = 'answer', owner?: Name): Rrsig[] =>
  (owner ? recordsFor(m, RRType.RRSIG, owner, [section]) : recordsOfType(m, RRType.RRSIG, [section])).filter((rr): rr is Rrsig =>
    recordIs(rr, RRType.RRSIG),
  );
export const dsIn = (m: DnsMessage, type: number, owner?: Name): ResourceRecord<DsData>[] =>
  (owner ? recordsFor(m, type, owner, ['answer']) : recordsOfType(m, type, ['answer'])).filter(
    (rr): rr is ResourceRecord<DsData> => recordIs(rr, RRType.DS) || recordIs(rr, RRType.CDS),
  );
export const good = (m: DnsMessage | undefined): m is DnsMessage => m !== undefined && m.rcode === 0 && m.aa;
export const hasDo = (m: DnsMessage): boolean => m.edns?.do === true;
export const now = (): number => Math.floor(Date.now() / 1000);
export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
export const dsKey = (ds: DsData): string => `${ds.keyTag}/${ds.algorithm}/${ds.digestType}/${hex(ds.digest)}`;
export const tagOf = (key: DnskeyRecord): number => keyTag(key.rdata);
