// Whether an RRset validates from the root down (RFC 4035 §5), along the zones a resolution went
// through. The engine has no trust anchor: the root's DNSKEY RRset is taken as its servers give it,
// once it is signed by one of its own keys.
import { checkDs, RRType, type Message as DnsMessage, type Name, type RecordInput } from '@app/dns';
import { Nameserver } from '../../net/nameserver-client.ts';
import type { Dnskey, Rrsig } from '../dnssec/records.ts';
import { dnskeysIn, dsIn, good, rrsigsIn } from '../dnssec/records.ts';
import { verifyWithKeys } from '@app/dns';

/** A zone a resolution went through, with its servers (names not yet resolved among them). */
export interface TraceStep {
  zone: Name;
  servers: readonly unknown[];
}

export type ChainVerdict = { secure: true } | { secure: false; zone: string };

async function firstAnswer(step: TraceStep, name: Name, type: number): Promise<DnsMessage | undefined> {
  for (const server of step.servers) {
    if (!(server instanceof Nameserver)) continue;
    const response = await server.query(name, type, { dnssec: true });
    if (good(response)) return response;
  }
  return undefined;
}

const signedWith = (rrset: readonly RecordInput[], sigs: readonly Rrsig[], keys: readonly Dnskey[], signer: Name, time: number): boolean =>
  rrset.length > 0 && sigs.some((sig) => sig.rdata.signerName.equals(signer) && verifyWithKeys(rrset, sig, keys, time).ok);

/** The DNSKEY RRset of each zone of the trace, from the root down, while every link holds. */
async function zoneKeys(trace: readonly TraceStep[], upTo: Name, time: number): Promise<{ keys: Dnskey[] } | { broken: string }> {
  let keys: Dnskey[] = [];
  for (const [i, step] of trace.entries()) {
    const answer = await firstAnswer(step, step.zone, RRType.DNSKEY);
    const dnskeys = answer ? dnskeysIn(answer, step.zone) : [];
    const sigs = answer ? rrsigsIn(answer, 'answer', step.zone).filter((s) => s.rdata.typeCovered === RRType.DNSKEY) : [];
    if (i === 0) {
      if (!signedWith(dnskeys, sigs, dnskeys, step.zone, time)) return { broken: step.zone.toString() };
    } else {
      const parent = trace[i - 1];
      const dsAnswer = await firstAnswer(parent, step.zone, RRType.DS);
      const ds = dsAnswer ? dsIn(dsAnswer, RRType.DS, step.zone) : [];
      const dsSigs = dsAnswer ? rrsigsIn(dsAnswer, 'answer', step.zone).filter((s) => s.rdata.typeCovered === RRType.DS) : [];
      if (!signedWith(ds, dsSigs, keys, parent.zone, time)) return { broken: step.zone.toString() };
      const anchored = ds.some((d) => checkDs(step.zone, d.rdata, dnskeys, sigs, time).signatures.some((s) => s.result.ok));
      if (!anchored) return { broken: step.zone.toString() };
    }
    keys = dnskeys;
    if (step.zone.equals(upTo)) return { keys };
  }
  return { broken: upTo.toString() };
}

/** Whether `rrset` with `sigs`, found along `trace`, validates from the root. */
export async function validates(
  trace: readonly TraceStep[],
  rrset: readonly RecordInput[],
  sigs: readonly Rrsig[],
  time: number,
): Promise<ChainVerdict> {
  const signer = sigs[0]?.rdata.signerName;
  if (signer === undefined) return { secure: false, zone: '' };
  const found = await zoneKeys(trace, signer, time);
  if ('broken' in found) return { secure: false, zone: found.broken };
  return signedWith(rrset, sigs, found.keys, signer, time) ? { secure: true } : { secure: false, zone: signer.toString() };
}
