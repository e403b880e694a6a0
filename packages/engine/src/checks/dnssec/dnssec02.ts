import { checkDs, type Name, verifyWithKeys, type DsCheck, type DsData } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import type { Dnskey, Rrsig } from './records.ts';
import { ZONE_KEY, SEP, familyTags, dnskeysIn, rrsigsIn, good, hasDo, now, tagOf } from './records.ts';
import { Grouped, listed } from './finding-lists.ts';
import { childServers, parentDsRecords, dnskeyQuery } from './servers.ts';
import { Unsupported } from './signatures.ts';
import { specs, gated } from './declaration.ts';

/** checkDs, where (as in 9.0) a computed digest matches only a key of the DS record's algorithm. */
function dsCheck(owner: Name, ds: DsData, keys: readonly Dnskey[], rrsigs: readonly Rrsig[]): DsCheck {
  const check = checkDs(owner, ds, keys, rrsigs, now());
  if (check.digest !== 'match' || check.key?.rdata.algorithm === ds.algorithm) return check;
  const same = checkDs(
    owner,
    ds,
    keys.filter((key) => key.rdata.algorithm === ds.algorithm),
    rrsigs,
    now(),
  );
  if (same.digest === 'match') return same;
  const key = keys.find((candidate) => tagOf(candidate) === ds.keyTag)!;
  return { ...check, key, digest: 'mismatch', zoneKey: (key.rdata.flags & ZONE_KEY) !== 0, sep: (key.rdata.flags & SEP) !== 0 };
}

/** DNSSEC02: each DS names a zone key that signs the DNSKEY RRset, on every server. */
export const dnssec02: TestCase = {
  id: 'DNSSEC02',
  spec: `${specs}/dnssec02.md`,
  tags: [
    'DS02_ALGO_NOT_SUPPORTED_BY_ZM',
    'DS02_DNSKEY_NOT_FOR_ZONE_SIGNING',
    'DS02_DNSKEY_NOT_SEP',
    'DS02_DNSKEY_NOT_SIGNED_BY_ANY_DS',
    'DS02_NO_DNSKEY_FOR_DS',
    'DS02_NO_MATCHING_DNSKEY_RRSIG',
    'DS02_NO_MATCH_DS_DNSKEY',
    'DS02_NO_VALID_DNSKEY_FOR_ANY_DS',
    'DS02_RRSIG_NOT_VALID_BY_DNSKEY',
    ...familyTags,
  ],
  ...gated,
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const dsRecords = await parentDsRecords(context, messages);
    if (dsRecords.length === 0) return messages;
    const [noKey, mismatch, notZone, notSep, unsignedByDs, invalid] = [
      new Grouped(),
      new Grouped(),
      new Grouped(),
      new Grouped(),
      new Grouped(),
      new Grouped(),
    ];
    const unsupported = new Unsupported();
    const responding: string[] = [];
    const withKey = new Set<string>();
    const withSignature = new Set<string>();
    const servers = await childServers(context, ['DNSKEY'], messages);
    const responses = await Promise.all(servers.map((server) => dnskeyQuery(server, zone.name)));
    servers.forEach((server, i) => {
      const response = responses[i];
      if (!good(response) || !hasDo(response)) return;
      const keys = dnskeysIn(response, zone.name);
      if (keys.length === 0) return;
      const ip = server.address;
      responding.push(ip);
      const rrsigs = rrsigsIn(response, 'answer', zone.name);
      // The reference checks the signatures of every key matched so far on this server, again for each DS.
      const matched = new Map<number, true>();
      for (const ds of dsRecords) {
        const check = dsCheck(zone.name, ds, keys, rrsigs);
        if (!check.key) {
          noKey.add(ds.keyTag, ip);
          continue;
        }
        if (check.digest === 'mismatch') mismatch.add(ds.keyTag, ip);
        if (!check.zoneKey) {
          notZone.add(ds.keyTag, ip);
          continue;
        }
        if (!check.sep) notSep.add(ds.keyTag, ip);
        matched.set(tagOf(check.key), true);
        withKey.add(ip);
        for (const tag of matched.keys()) {
          let valid = 0;
          const signatures = rrsigs.filter((rrsig) => rrsig.rdata.keyTag === tag);
          for (const rrsig of signatures) {
            const result = verifyWithKeys(keys, rrsig, keys, now());
            if (result.ok) valid++;
            else if (result.reason === 'unsupported-algorithm') unsupported.add(rrsig, ip);
            else invalid.add(rrsig.rdata.keyTag, ip);
          }
          if (valid === 0) unsignedByDs.add(tag, ip);
          else withSignature.add(ip);
        }
      }
    });
    messages.push(
      ...noKey.messages('DS02_NO_DNSKEY_FOR_DS'),
      ...mismatch.messages('DS02_NO_MATCH_DS_DNSKEY'),
      ...notZone.messages('DS02_DNSKEY_NOT_FOR_ZONE_SIGNING'),
      ...notSep.messages('DS02_DNSKEY_NOT_SEP'),
      ...unsignedByDs.messages('DS02_NO_MATCHING_DNSKEY_RRSIG'),
      ...unsupported.messages('DS02_ALGO_NOT_SUPPORTED_BY_ZM'),
      ...invalid.messages('DS02_RRSIG_NOT_VALID_BY_DNSKEY'),
    );
    const noValidKey = responding.filter((ip) => !withKey.has(ip));
    const notSigned = responding.filter((ip) => !withSignature.has(ip));
    messages.push(
      ...(noValidKey.length > 0
        ? listed('DS02_NO_VALID_DNSKEY_FOR_ANY_DS', noValidKey)
        : listed('DS02_DNSKEY_NOT_SIGNED_BY_ANY_DS', notSigned)),
    );
    return messages;
  },
};
