// What every zone's analysis reads from the run's query log: the answered replies, the zone cuts with
// each zone's servers, every zone's DNSKEYs, and RRSIGs judged once (the same one comes from every server).
import {
  Name,
  RRType,
  keyTag,
  recordIs,
  rdataToString,
  typeToString,
  type DnskeyData,
  type Message,
  type Rdata,
  type ResourceRecord,
  type RrsigData,
} from '@app/dns';
import type { Exchange } from '../net/network.ts';
import { readQueryLog, type LoggedReply } from './query-log.ts';
import { findZoneCuts, type AnsweredReply, type ZoneCuts } from './zone-cuts.ts';
import { judgeRrsig } from './statuses.ts';

export const typeName = (type: number): string => typeToString(type);
export const dotted = (name: Name): string => {
  const text = name.toLowerCase().toString();
  return text.endsWith('.') ? text : `${text}.`;
};
export const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();
export const keyId = (key: DnskeyData): string => `${key.algorithm}/${keyTag(key)}`;
export const rdataKey = (type: number, rdata: unknown): string => `${type} ${rdataToString(type, rdata as never)}`;

export function records<T extends Rdata>(
  message: Message,
  section: 'answer' | 'authority' | 'additional',
  owner: Name,
  type: number,
): ResourceRecord<T>[] {
  return message[section].filter((rr) => rr.type === type && rr.name.equals(owner)) as ResourceRecord<T>[];
}

export function rrsigsOver(message: Message, section: 'answer' | 'authority', owner: Name, type: number): ResourceRecord<RrsigData>[] {
  return message[section].filter(
    (rr): rr is ResourceRecord<RrsigData> => recordIs(rr, RRType.RRSIG) && rr.rdata.typeCovered === type && rr.name.equals(owner),
  );
}

/** One RRset as several servers gave it: the records once, with every server that sent them. */
export interface SeenRrset {
  records: ResourceRecord[];
  rrsigs: Map<string, { rr: ResourceRecord<RrsigData>; servers: Set<string> }>;
  servers: Set<string>;
}

export function collect(seen: Map<string, SeenRrset>, rrset: ResourceRecord[], rrsigs: ResourceRecord<RrsigData>[], server: string): void {
  if (rrset.length === 0) return;
  const key = rrset
    .map((rr) => rdataKey(rr.type, rr.rdata))
    .sort()
    .join('\n');
  let entry = seen.get(key);
  if (!entry) {
    entry = { records: rrset, rrsigs: new Map(), servers: new Set() };
    seen.set(key, entry);
  }
  entry.servers.add(server);
  for (const sig of rrsigs) {
    const sigKey = rdataKey(RRType.RRSIG, sig.rdata);
    const known = entry.rrsigs.get(sigKey) ?? { rr: sig, servers: new Set<string>() };
    known.servers.add(server);
    entry.rrsigs.set(sigKey, known);
  }
}

export interface ChainReading extends ZoneCuts {
  target: Name;
  judgedAt: number;
  answered: AnsweredReply[];
  /** Whether the reply came from one of the zone's own servers. */
  inZone: (zone: Name, reply: LoggedReply) => boolean;
  judgeOnce: (
    rrset: readonly ResourceRecord[],
    sig: ResourceRecord<RrsigData>,
    key: ResourceRecord<DnskeyData> | undefined,
    signerZone: Name,
  ) => ReturnType<typeof judgeRrsig>;
  /** The DNSKEYs the zone's own servers gave. */
  keysOf: (zone: Name) => ResourceRecord<DnskeyData>[];
  /** Zones some RRSIG names as its signer. */
  signedZones: Set<string>;
}

export function readChain(domain: string, exchanges: readonly Exchange[], at: Date): ChainReading {
  const judgedAt = Math.floor(at.getTime() / 1000);
  const target = Name.fromString(domain.endsWith('.') ? domain : `${domain}.`).toLowerCase();
  const answered = readQueryLog(exchanges).filter((r): r is AnsweredReply => r.message !== undefined);
  const cuts = findZoneCuts(target, answered);
  const inZone = (zone: Name, r: LoggedReply): boolean => cuts.servers.get(zone.key())?.has(r.address) === true;

  const judged = new Map<string, ReturnType<typeof judgeRrsig>>();
  const judgeOnce: ChainReading['judgeOnce'] = (rrset, sig, key, signerZone) => {
    const id = [
      rrset
        .map((rr) => rdataKey(rr.type, rr.rdata))
        .sort()
        .join(','),
      rdataKey(RRType.RRSIG, sig.rdata),
      key ? rdataKey(RRType.DNSKEY, key.rdata) : '-',
      signerZone.key(),
    ].join('|');
    let result = judged.get(id);
    if (!result) {
      result = judgeRrsig(rrset, sig, key, signerZone, judgedAt);
      judged.set(id, result);
    }
    return result;
  };

  const signedZones = new Set<string>();
  for (const r of answered) {
    for (const rr of [...r.message.answer, ...r.message.authority])
      if (recordIs(rr, RRType.RRSIG)) signedZones.add(rr.rdata.signerName.key());
  }
  // Every zone's DNSKEYs first: an RRSIG over a child's DS is judged with its parent's keys.
  const keysByZone = new Map<string, ResourceRecord<DnskeyData>[]>();
  for (const zone of cuts.chain) {
    const keys = new Map<string, ResourceRecord<DnskeyData>>();
    for (const r of answered) {
      if (r.qtype !== RRType.DNSKEY || !r.qname.equals(zone) || !inZone(zone, r)) continue;
      for (const rr of records<DnskeyData>(r.message, 'answer', zone, RRType.DNSKEY)) keys.set(rdataKey(RRType.DNSKEY, rr.rdata), rr);
    }
    keysByZone.set(zone.key(), [...keys.values()]);
  }
  return { ...cuts, target, judgedAt, answered, inZone, judgeOnce, keysOf: (zone) => keysByZone.get(zone.key()) ?? [], signedZones };
}
