// Which autonomous systems announce an address, from the profile's `asn_db` sources, as the reference
// engine 4.6 asks them. Cymru style: a TXT record at origin.<reversed IPv4>.<source> or
// origin6.<reversed IPv6 nibbles>.<source>, "ASN [ASN...] | prefix | ...", asked of the source zone's own
// name servers. RIPE style: the riswhois service on TCP port 43 ("-F -M <ip>"), its host found with
// the run's own resolver (so a lab run stays in the lab).
import { connect } from 'node:net';
import { Name, RRType, recordIs, Rcode } from '@app/dns';
import type { Profile } from '../profile/profile.ts';
import type { Zone } from '../zone.ts';
import { ipv6Nibbles } from './ip-address.ts';
import { recordsFor } from './response.ts';

export interface AsnFound {
  status: 'found';
  asns: number[];
  prefix?: string;
  raw: string;
}

export type AsnLookup = AsnFound | { status: 'empty' | 'error' };

/**
 * The lookup for one address; undefined when the reference ends it without any finding: when a Cymru
 * source that is not the last gives nothing, 4.6.2 asks the later sources with the query name it
 * already rewrote for the first, which matches nothing, so the address is silently left out.
 */
export async function lookUpAsn(address: string, asnDb: Profile['asn_db'], zoneOf: (name: Name) => Zone, resolve: (host: Name) => Promise<string[]>): Promise<AsnLookup | undefined> {
  const style = asnDb.style.toLowerCase();
  const sources = Object.entries(asnDb.sources).find(([key]) => key.toLowerCase() === style)?.[1] ?? [];
  if (sources.length === 0) return { status: 'error' };
  if (style === 'ripe') return ripeLookup(address, sources, resolve);
  return cymruLookup(address, sources[0], sources.length === 1, zoneOf);
}

async function cymruLookup(address: string, source: string, onlySource: boolean, zoneOf: (name: Name) => Zone): Promise<AsnLookup | undefined> {
  const reversed = address.includes(':') ? `${ipv6Nibbles(address).reverse().join('.')}.origin6` : `${address.split('.').reverse().join('.')}.origin`;
  const sourceName = Name.fromString(`${source}.`);
  const qname = Name.fromString(`${reversed}.${source}.`);
  const response = await zoneOf(sourceName).queryPersistent(qname, RRType.TXT);
  const texts = response ? recordsFor(response, RRType.TXT, qname, ['answer']).flatMap((rr) => (recordIs(rr, RRType.TXT) ? [rr.rdata.strings.map((s) => Buffer.from(s).toString('latin1')).join('')] : [])) : [];
  if (response && (response.rcode === Rcode.NXDOMAIN || (response.rcode === Rcode.NOERROR && texts.length === 0))) return { status: 'empty' };
  if (!response || response.rcode !== Rcode.NOERROR) return onlySource ? { status: 'error' } : undefined;
  // The record with the longest prefix wins.
  let best: { fields: string[]; length: number; raw: string } | undefined;
  for (const raw of texts) {
    const fields = raw.split(/ \| ?/);
    const length = Number(/\/(\d+)/.exec(fields[1] ?? '')?.[1] ?? 0);
    if (!best || length > best.length) best = { fields, length, raw };
  }
  if (!best) return onlySource ? { status: 'error' } : undefined;
  const asns = (best.fields[0] ?? '').trim().split(/\s+/).filter(Boolean).map(Number);
  return { status: 'found', asns, raw: best.raw, ...(best.fields[1] && { prefix: best.fields[1].trim() }) };
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
