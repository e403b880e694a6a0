// Automation02: DNSSEC bootstrapping (RFC 9615). For an unsigned delegation of a signed child, the
// signalling records at _dsboot.<child>._signal.<ns> under every name server's own zone: there, signed,
// validating from the root, and equal to the child's CDS/CDNSKEY. Then a parent could publish the DS now.
import { Name, RRType, recordIs, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase, TestContext } from '../../framework/test-case.ts';
import { Nameserver } from '../../net/nameserver-client.ts';
import type { ChildKeySets } from '../dnssec/servers.ts';
import { dsIn, familyTags, good, now, rrsigsIn, type Dnskey } from '../dnssec/records.ts';
import { recordsFor } from '../../net/response.ts';
import { spec } from './automation01.ts';
import { childAnswers, currentDs } from './child-answers.ts';
import { childSignalText, dsLine, parentDsVerdict, proposedDs } from './parent-ds.ts';
import { validates } from './secure-chain.ts';

export const bootstrapTags = [
  'BOOTSTRAP_NOT_NEEDED',
  'BOOTSTRAP_NO_CDS',
  'BOOTSTRAP_CDS_INCONSISTENT',
  'BOOTSTRAP_CHILD_NOT_VALID',
  'BOOTSTRAP_NS_IN_BAILIWICK',
  'BOOTSTRAP_SIGNAL_OK',
  'BOOTSTRAP_SIGNAL_MISSING',
  'BOOTSTRAP_SIGNAL_MISMATCH',
  'BOOTSTRAP_SIGNAL_UNSIGNED',
  'BOOTSTRAP_SIGNAL_BOGUS',
  'BOOTSTRAP_POSSIBLE',
  'BOOTSTRAP_NOT_POSSIBLE',
] as const;

/** `_dsboot.<child>._signal.<ns>` (RFC 9615 §3.1), or undefined when it would be longer than a name may be. */
export function signalName(child: Name, ns: Name): Name | undefined {
  const text = `_dsboot.${child.isRoot ? '' : `${child.toString()}`}_signal.${ns.toString()}`;
  try {
    return Name.fromString(text);
  } catch {
    return undefined;
  }
}

/** The CDS and CDNSKEY at the signalling name, with their RRSIGs, from a server of the zone a resolution ends in. */
async function signalSets(context: TestContext, name: Name): Promise<{ sets: ChildKeySets; trace: Parameters<typeof validates>[0] }> {
  const resolution = await context.zone.recurse(name, RRType.CDS);
  const last = resolution.trace.at(-1);
  const sets: ChildKeySets = {};
  for (const server of last?.servers ?? []) {
    if (!(server instanceof Nameserver)) continue;
    const [cds, cdnskey]: (DnsMessage | undefined)[] = await Promise.all(
      [RRType.CDS, RRType.CDNSKEY].map((type) => server.query(name, type, { dnssec: true })),
    );
    if (!good(cds) || !good(cdnskey)) continue;
    sets.cds = { records: dsIn(cds, RRType.CDS, name), rrsigs: rrsigsIn(cds, 'answer', name) };
    sets.cdnskey = {
      records: recordsFor(cdnskey, RRType.CDNSKEY, name, ['answer']).filter((rr): rr is Dnskey => recordIs(rr, RRType.CDNSKEY)),
      rrsigs: rrsigsIn(cdnskey, 'answer', name),
    };
    break;
  }
  return { sets, trace: resolution.trace };
}

export const automation02: TestCase = {
  id: 'Automation02',
  spec,
  tags: [...bootstrapTags, ...familyTags],
  async run(context) {
    const { zone } = context;
    const messages: Message[] = [];
    const [servers, current] = await Promise.all([childAnswers(context, messages), currentDs(context, messages)]);
    if (current.length > 0) return [...messages, { tag: 'BOOTSTRAP_NOT_NEEDED', args: {} }];
    const answering = [...servers.values()].filter((s): s is ChildKeySets => s !== undefined);
    const texts = new Set(answering.map(childSignalText));
    if (answering.length === 0 || [...texts].every((t) => t === '')) return [...messages, { tag: 'BOOTSTRAP_NO_CDS', args: {} }];
    if (texts.size > 1 || answering.length < servers.size) return [...messages, { tag: 'BOOTSTRAP_CDS_INCONSISTENT', args: {} }];
    const child = answering[0];
    const time = now();
    const proposed = proposedDs(zone.name, child, child.cds?.records[0]?.ttl ?? child.cdnskey?.records[0]?.ttl ?? 3600);
    // The child's own side must hold as if the proposed DS were in place (RFC 9615 §4.2, RFC 7344 §4.1).
    const childSide = parentDsVerdict({ zone: zone.name, current: proposed, servers, time });
    const findings: Message[] = [];
    let blocked = false;
    if (childSide.tag !== 'PARENT_DS_UNCHANGED') {
      findings.push({ tag: 'BOOTSTRAP_CHILD_NOT_VALID', args: { reason: childSide.tag } });
      blocked = true;
    }
    let usable = 0;
    for (const ns of await zone.glueNames()) {
      const nsname = ns.toString();
      if (ns.isSubdomainOf(zone.name)) {
        findings.push({ tag: 'BOOTSTRAP_NS_IN_BAILIWICK', args: { nsname } });
        continue;
      }
      usable++;
      const name = signalName(zone.name, ns);
      const { sets, trace } = name ? await signalSets(context, name) : { sets: {}, trace: [] };
      const found = [...(sets.cds?.records ?? []), ...(sets.cdnskey?.records ?? [])];
      const signal = name?.toString() ?? '';
      if (found.length === 0) findings.push({ tag: 'BOOTSTRAP_SIGNAL_MISSING', args: { nsname, signal } });
      else if (childSignalText(sets) !== childSignalText(child))
        findings.push({ tag: 'BOOTSTRAP_SIGNAL_MISMATCH', args: { nsname, signal } });
      else {
        const parts = [sets.cds!, sets.cdnskey!].filter((p) => p.records.length > 0);
        if (parts.some((p) => p.rrsigs.length === 0)) findings.push({ tag: 'BOOTSTRAP_SIGNAL_UNSIGNED', args: { nsname, signal } });
        else {
          const verdicts = await Promise.all(parts.map((p) => validates(trace, p.records, p.rrsigs, time)));
          const broken = verdicts.find((v) => !v.secure);
          if (broken && !broken.secure) findings.push({ tag: 'BOOTSTRAP_SIGNAL_BOGUS', args: { nsname, signal, zone: broken.zone } });
          else {
            findings.push({ tag: 'BOOTSTRAP_SIGNAL_OK', args: { nsname, signal } });
            continue;
          }
        }
      }
      blocked = true;
    }
    if (usable === 0) blocked = true;
    const verdict: Message = blocked
      ? { tag: 'BOOTSTRAP_NOT_POSSIBLE', args: {} }
      : { tag: 'BOOTSTRAP_POSSIBLE', args: { count: proposed.length, ds_list: proposed.map((d) => dsLine(zone.name, d)).join(';') } };
    return [...messages, ...findings, verdict];
  },
};
