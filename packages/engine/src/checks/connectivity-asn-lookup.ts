// Which autonomous systems announce an address, from the profile's `asn_db` sources, as the reference
// engine 9.0 asks them. Cymru style: a TXT record at origin.<reversed IPv4>.<source> or
// origin6.<reversed IPv6 nibbles>.<source>, "ASN [ASN...] | prefix | ...", found with the run's
// recursor; a source that cannot say (no response, SERVFAIL, an NXDOMAIN from elsewhere) hands over to
// the next. RIPE style: the riswhois service on TCP port 43 ("-F -M <ip>"), its host found with the
// run's own resolver (so a lab run stays in the lab).
import { connect } from 'node:net';
import { ipFamily, Name, RRType, recordIs, Rcode, type Message } from '@app/dns';
import type { Profile } from '../profile/profile.ts';
import { ipv6Nibbles, prefixMatcher } from '../net/ip-address.ts';
import { recordsOfType } from '../net/response.ts';

export interface AsnFound {
  status: 'found';
  asns: number[];
  /** The announced prefix, as the source wrote it. */
  prefix?: string;
  raw: string;
}

export type AsnLookup = AsnFound | { status: 'empty' | 'error' };

/** A TXT question answered from the root (the reference's recursor); undefined when nothing answered. */
export type TxtLookup = (qname: Name) => Promise<Message | undefined>;

export async function lookUpAsn(
  address: string,
  asnDb: Profile['asn_db'],
  lookUpTxt: TxtLookup,
  resolve: (host: Name) => Promise<string[]>,
): Promise<AsnLookup> {
  const style = asnDb.style.toLowerCase();
  const sources = Object.entries(asnDb.sources).find(([key]) => key.toLowerCase() === style)?.[1] ?? [];
  if (sources.length === 0) return { status: 'error' };
  if (style === 'ripe') return ripeLookup(address, sources, resolve);
  for (const source of sources) {
    const found = await cymruLookup(address, source, lookUpTxt);
    if (found) return found;
  }
  return { status: 'error' };
}

/** One Cymru source's verdict; undefined when it could not say and the next source is asked. */
async function cymruLookup(address: string, source: string, lookUpTxt: TxtLookup): Promise<AsnLookup | undefined> {
  const reversed =
    ipFamily(address) === 6 ? `${ipv6Nibbles(address).reverse().join('.')}.origin6` : `${address.split('.').reverse().join('.')}.origin`;
  const sourceName = Name.fromString(`${source}.`);
  const response = await lookUpTxt(Name.fromString(`${reversed}.${source}.`));
  if (!response) return undefined;
  if (response.rcode === Rcode.NXDOMAIN) {
    // Empty only when the source zone itself says the name does not exist.
    const soas = recordsOfType(response, RRType.SOA, ['authority']);
    return soas.length === 1 && soas[0].name.equals(sourceName) ? { status: 'empty' } : undefined;
  }
  if (response.rcode !== Rcode.NOERROR) return undefined;
  if (response.answer.length === 0) return { status: 'empty' };
  const texts = recordsOfType(response, RRType.TXT, ['answer']).flatMap((rr) =>
    recordIs(rr, RRType.TXT) ? [rr.rdata.strings.map((s) => Buffer.from(s).toString('latin1')).join('')] : [],
  );
  if (texts.length === 0) return { status: 'error' };
  // The record with the longest prefix wins; one whose prefix does not hold the address spoils the answer.
  let best: { fields: string[]; length: number; raw: string } | undefined;
  for (const raw of texts) {
    const fields = raw.split(/ \| ?/);
    if (fields.length <= 1) continue;
    if (!holds(fields[1], address)) return { status: 'error' };
    const length = Number(/\/(\d+)/.exec(fields[1])?.[1] ?? 0);
    if (length > (best?.length ?? 0)) best = { fields, length, raw };
  }
  if (!best) return { status: 'empty' };
  const asns = best.fields[0].trim().split(/\s+/).filter(Boolean).map(Number);
  return { status: 'found', asns, raw: best.raw, prefix: best.fields[1].trim() };
}

function holds(prefix: string, address: string): boolean {
  try {
    return prefixMatcher(prefix.trim())(address);
  } catch {
    return false;
  }
}

const whoisTimeoutMs = 5000;

async function ripeLookup(address: string, sources: string[], resolve: (host: Name) => Promise<string[]>): Promise<AsnLookup> {
  for (const [i, source] of sources.entries()) {
    const last = i === sources.length - 1;
    const hosts = await resolve(Name.fromString(`${source}.`));
    const lines = hosts.length > 0 ? await whois(hosts[0], `-F -M ${address}\n`) : undefined;
    if (lines === undefined || lines.length === 0) {
      if (last) return { status: 'error' };
      continue;
    }
    const line = lines.find((l) => !l.startsWith('%') && l.trim() !== '');
    if (!line) return { status: 'empty' };
    const [asn, prefix] = line.split(/\s+/);
    return { status: 'found', asns: [Number(asn)], raw: line, ...(prefix && { prefix }) };
  }
  return { status: 'error' };
}

/** The lines a whois server sends for one request; undefined when it cannot be reached. */
function whois(host: string, request: string): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: 43 });
    let text = '';
    let connected = false;
    const timer = setTimeout(() => socket.destroy(), whoisTimeoutMs);
    socket.on('connect', () => {
      connected = true;
      socket.end(request);
    });
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.length > 65536) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(connected ? (text === '' ? [] : text.split('\n')) : undefined);
    });
  });
}
