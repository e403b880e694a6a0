import { keyTag, verifyWithKeys, type DnskeyData } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import type { Rrsig } from './records.ts';
import { ZONE_KEY, SEP, familyTags, now, tagOf } from './records.ts';
import { Grouped, listed } from './finding-lists.ts';
import { childKeySets } from './servers.ts';
import { specs, gated } from './declaration.ts';

/** DNSSEC16 and DNSSEC17 share their shape: the CDS or CDNSKEY RRset against the DNSKEY RRset, per server. */
function childKeyCheck(id: 'DNSSEC16' | 'DNSSEC17'): TestCase {
  const cds = id === 'DNSSEC16';
  const p = cds ? 'DS16_CDS' : 'DS17_CDNSKEY';
  const x = cds ? 'DS16' : 'DS17';
  const word = cds ? 'CDS' : 'CDNSKEY';
  const tags = {
    withoutDnskey: `${p}_WITHOUT_DNSKEY`,
    mixedDelete: `${x}_MIXED_DELETE_${word}`,
    delete: `${x}_DELETE_${word}`,
    noMatch: `${p}_MATCHES_NO_DNSKEY`,
    nonZone: cds ? 'DS16_CDS_MATCHES_NON_ZONE_DNSKEY' : 'DS17_CDNSKEY_IS_NON_ZONE',
    nonSep: cds ? 'DS16_CDS_MATCHES_NON_SEP_DNSKEY' : 'DS17_CDNSKEY_IS_NON_SEP',
    dnskeyNotSigned: `${x}_DNSKEY_NOT_SIGNED_BY_${word}`,
    notSignedBySelf: `${p}_NOT_SIGNED_BY_${word}`,
    invalid: `${p}_INVALID_RRSIG`,
    unsigned: `${p}_UNSIGNED`,
    unknownSigner: `${p}_SIGNED_BY_UNKNOWN_DNSKEY`,
  };
  return {
    id,
    spec: `${specs}/${id.toLowerCase()}.md`,
    tags: [...Object.values(tags), ...familyTags],
    ...gated,
    async run(context) {
      const messages: Message[] = [];
      const g = Object.fromEntries(
        ['noMatch', 'nonZone', 'nonSep', 'dnskeyNotSigned', 'notSignedBySelf', 'invalid', 'unknownSigner'].map((k) => [k, new Grouped()]),
      ) as Record<string, Grouped>;
      const s = { withoutDnskey: [] as string[], mixedDelete: [] as string[], delete: [] as string[], unsigned: [] as string[] };
      const time = now();
      for (const [ip, sets] of await childKeySets(context, [word, 'DNSKEY'], messages)) {
        const own = cds ? sets.cds : sets.cdnskey;
        if (!own || own.records.length === 0) continue;
        const algorithms = own.records.map((rr) => rr.rdata.algorithm);
        if (algorithms.includes(0)) {
          (algorithms.some((a) => a !== 0) ? s.mixedDelete : s.delete).push(ip);
          continue;
        }
        const dnskeys = sets.dnskey?.records ?? [];
        if (dnskeys.length === 0) {
          s.withoutDnskey.push(ip);
          continue;
        }
        for (const rr of own.records) {
          const tag = 'keyTag' in rr.rdata ? rr.rdata.keyTag : keyTag(rr.rdata);
          const keysWithTag = dnskeys.filter((key) => tagOf(key) === tag);
          const signedBy = (sigs: readonly Rrsig[]): boolean => sigs.some((sig) => sig.rdata.keyTag === tag);
          if (cds) {
            if (keysWithTag.length === 0) g.noMatch.add(tag, ip);
            else if (keysWithTag.some((key) => !(key.rdata.flags & ZONE_KEY))) g.nonZone.add(tag, ip);
            else {
              if (!signedBy(sets.dnskey!.rrsigs)) g.dnskeyNotSigned.add(tag, ip);
              if (!signedBy(own.rrsigs)) g.notSignedBySelf.add(tag, ip);
              if (keysWithTag.some((key) => !(key.rdata.flags & SEP))) g.nonSep.add(tag, ip);
            }
          } else {
            const flags = (rr.rdata as DnskeyData).flags;
            if (!(flags & ZONE_KEY)) g.nonZone.add(tag, ip);
            else {
              if (!(flags & SEP)) g.nonSep.add(tag, ip);
              if (keysWithTag.length === 0) g.noMatch.add(tag, ip);
              else {
                if (!signedBy(sets.dnskey!.rrsigs)) g.dnskeyNotSigned.add(tag, ip);
                if (!signedBy(own.rrsigs)) g.notSignedBySelf.add(tag, ip);
              }
            }
          }
        }
        if (own.rrsigs.length === 0) s.unsigned.push(ip);
        for (const sig of own.rrsigs) {
          const keys = dnskeys.filter((key) => tagOf(key) === sig.rdata.keyTag);
          if (keys.length === 0) g.unknownSigner.add(sig.rdata.keyTag, ip);
          else if (!verifyWithKeys(own.records, sig, keys, time).ok) g.invalid.add(sig.rdata.keyTag, ip);
        }
      }
      messages.push(
        ...listed(tags.withoutDnskey, s.withoutDnskey),
        ...listed(tags.mixedDelete, s.mixedDelete),
        ...listed(tags.delete, s.delete),
        ...g.noMatch.messages(tags.noMatch),
        ...g.nonZone.messages(tags.nonZone),
        ...g.nonSep.messages(tags.nonSep),
        ...g.dnskeyNotSigned.messages(tags.dnskeyNotSigned),
        ...g.notSignedBySelf.messages(tags.notSignedBySelf),
        ...g.invalid.messages(tags.invalid),
        ...listed(tags.unsigned, s.unsigned),
        ...g.unknownSigner.messages(tags.unknownSigner),
      );
      return messages;
    },
  };
}

export const dnssec16 = childKeyCheck('DNSSEC16');
export const dnssec17 = childKeyCheck('DNSSEC17');
