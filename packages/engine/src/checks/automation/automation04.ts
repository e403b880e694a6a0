// Automation04: multi-signer (RFC 8901). Every name server of the zone, whichever provider runs it,
// must answer the same DNSKEY RRset and the same CDS/CDNSKEY: a provider that differs breaks
// validation for the resolvers that reach it, or makes the parent refuse the CDS.
import type { Message } from '../../finding.ts';
import type { TestCase } from '../../framework/test-case.ts';
import { familyTags, hex } from '../dnssec/records.ts';
import type { ChildKeySets } from '../dnssec/servers.ts';
import { spec } from './automation01.ts';
import { childAnswers } from './child-answers.ts';
import { childSignalText } from './parent-ds.ts';

export const multiSignerTags = [
  'MULTI_SIGNER_PROVIDERS',
  'MULTI_SIGNER_CONSISTENT',
  'MULTI_SIGNER_DNSKEY_DIFFERS',
  'MULTI_SIGNER_CDS_DIFFERS',
  'MULTI_SIGNER_NO_ANSWER',
] as const;

/** The provider of a name server: its name without the first label (ns1.provider.example → provider.example). */
export const providerOf = (server: string): string => {
  const name = server.split('/')[0];
  const dot = name.indexOf('.');
  return dot < 0 || dot === name.length - 1 ? name : name.slice(dot + 1);
};

const dnskeyText = (sets: ChildKeySets): string =>
  (sets.dnskey?.records ?? [])
    .map((r) => `${r.rdata.flags}/${r.rdata.protocol}/${r.rdata.algorithm}/${hex(r.rdata.publicKey)}`)
    .sort()
    .join('\n');

/** The servers whose answer differs from the one most servers give, and the providers they belong to. */
function minority(answers: ReadonlyMap<string, ChildKeySets>, text: (s: ChildKeySets) => string): { ns: string[]; providers: string[] } {
  const groups = new Map<string, string[]>();
  for (const [ns, sets] of answers) groups.set(text(sets), [...(groups.get(text(sets)) ?? []), ns]);
  if (groups.size <= 1) return { ns: [], providers: [] };
  const [, ...others] = [...groups.values()].sort((a, b) => b.length - a.length);
  const ns = others.flat().sort();
  return { ns, providers: [...new Set(ns.map(providerOf))].sort() };
}

export const automation04: TestCase = {
  id: 'Automation04',
  spec,
  tags: [...multiSignerTags, ...familyTags],
  async run(context) {
    const messages: Message[] = [];
    const all = await childAnswers(context, messages);
    const silent = [...all].filter(([, s]) => s === undefined || s.dnskey === undefined).map(([ns]) => ns);
    const answers = new Map([...all].filter((e): e is [string, ChildKeySets] => e[1]?.dnskey !== undefined));
    const providers = [...new Set([...all.keys()].map(providerOf))].sort();
    const findings: Message[] = [{ tag: 'MULTI_SIGNER_PROVIDERS', args: { count: providers.length, providers: providers.join(';') } }];
    if (silent.length > 0) findings.push({ tag: 'MULTI_SIGNER_NO_ANSWER', args: { ns_list: silent.join(';') } });
    const dnskey = minority(answers, dnskeyText);
    const cds = minority(answers, childSignalText);
    if (dnskey.ns.length > 0)
      findings.push({ tag: 'MULTI_SIGNER_DNSKEY_DIFFERS', args: { providers: dnskey.providers.join(';'), ns_list: dnskey.ns.join(';') } });
    if (cds.ns.length > 0)
      findings.push({ tag: 'MULTI_SIGNER_CDS_DIFFERS', args: { providers: cds.providers.join(';'), ns_list: cds.ns.join(';') } });
    // An unsigned zone has nothing to agree on: no verdict.
    const signed = [...answers.values()].some((sets) => (sets.dnskey?.records.length ?? 0) > 0);
    if (dnskey.ns.length === 0 && cds.ns.length === 0 && signed)
      findings.push({ tag: 'MULTI_SIGNER_CONSISTENT', args: { count: providers.length } });
    return [...messages, ...findings];
  },
};
