// Transport03: the same zone over every transport (UDP, TCP, DoT, DoH): the SOA serial and the NS set
// each gives, how long each took, and what a resolver probing for encryption would make of the server
// (RFC 9539: opportunistic use whatever the certificate; RFC 8310's strict profile only when it is valid).
import { RRType, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase, TestContext } from '../../framework/test-case.ts';
import type { EncryptedOutcome } from '../../net/encrypted-lanes.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import { authenticated, ms, soaSerial, testedServers } from './servers.ts';

export const consistencyTags = [
  'TRANSPORT_SUMMARY',
  'TRANSPORT_TIMINGS',
  'TRANSPORT_SERIAL_DIFFERS',
  'TRANSPORT_NS_DIFFERS',
  'TRANSPORT_SAME_ANSWERS',
  'RFC9539_AUTHENTICATED',
  'RFC9539_OPPORTUNISTIC_ONLY',
  'RFC9539_NOT_USED',
  'TRANSPORT_NO_DOT',
] as const;

const nsSet = (message: DnsMessage | undefined): string | undefined =>
  message
    ? message.answer
        .filter((rr) => rr.type === RRType.NS)
        .map((rr) => String((rr.rdata as { target: { toString(): string } }).target).toLowerCase())
        .sort()
        .join(',')
    : undefined;

/** An answer over the transport a resolver could use: NOERROR with the zone's SOA. */
const usable = (outcome: EncryptedOutcome | undefined): boolean => soaSerial(outcome?.message) !== undefined;

interface Seen {
  serial?: number;
  nsSet?: string;
  ms?: number;
}

async function checkServer(server: Nameserver, context: TestContext): Promise<{ messages: Message[]; dotUsable: boolean }> {
  const zone = context.zone.name;
  const plain = { dnssec: false };
  // The NS question goes over an encrypted transport only once its SOA question was answered there, so a
  // silent port 853 costs one timeout, not two one after the other.
  const thenNs = async (transport: 'dot' | 'doh-post'): Promise<[EncryptedOutcome | undefined, EncryptedOutcome | undefined]> => {
    const soa = await server.encrypted(zone, RRType.SOA, transport);
    return [soa, soa?.message ? await server.encrypted(zone, RRType.NS, transport) : undefined];
  };
  const [udpSoa, tcpSoa, udpNs, tcpNs, [dotSoa, dotNs], [dohSoa, dohNs]] = await Promise.all([
    server.probe(zone, RRType.SOA, plain),
    server.probe(zone, RRType.SOA, { ...plain, tcp: true }),
    server.probe(zone, RRType.NS, plain),
    server.probe(zone, RRType.NS, { ...plain, tcp: true }),
    thenNs('dot'),
    thenNs('doh-post'),
  ]);
  const ns = server.toString();
  const seen: Record<'udp' | 'tcp' | 'dot' | 'doh', Seen> = {
    udp: { serial: soaSerial(udpSoa?.message), nsSet: nsSet(udpNs?.message), ms: udpSoa?.message && udpSoa.ms },
    tcp: { serial: soaSerial(tcpSoa?.message), nsSet: nsSet(tcpNs?.message), ms: tcpSoa?.message && tcpSoa.ms },
    dot: { serial: soaSerial(dotSoa?.message), nsSet: nsSet(dotNs?.message), ms: dotSoa?.message && dotSoa.ms },
    doh: { serial: soaSerial(dohSoa?.message), nsSet: nsSet(dohNs?.message), ms: dohSoa?.message && dohSoa.ms },
  };
  const field = (value: number | undefined): number | string => (value === undefined ? '' : ms(value));
  const messages: Message[] = [
    {
      tag: 'TRANSPORT_SUMMARY',
      args: {
        ns,
        udp_serial: seen.udp.serial ?? '',
        tcp_serial: seen.tcp.serial ?? '',
        dot_serial: seen.dot.serial ?? '',
        doh_serial: seen.doh.serial ?? '',
      },
    },
    // Apart, and below INFO: two runs of an unchanged zone differ only here, which a comparison must not show.
    {
      tag: 'TRANSPORT_TIMINGS',
      args: {
        ns,
        udp_ms: field(seen.udp.ms),
        tcp_ms: field(seen.tcp.ms),
        dot_ms: field(seen.dot.ms),
        doh_ms: field(seen.doh.ms),
      },
    },
  ];
  const answered = Object.entries(seen).filter(([, s]) => s.serial !== undefined);
  const serials = new Set(answered.map(([, s]) => s.serial));
  if (serials.size > 1)
    messages.push({ tag: 'TRANSPORT_SERIAL_DIFFERS', args: { ns, serials: answered.map(([t, s]) => `${t}=${s.serial}`).join(' ') } });
  const reference = seen.udp.nsSet ?? seen.tcp.nsSet;
  let nsDiffers = false;
  for (const [transport, s] of Object.entries(seen))
    if (reference !== undefined && s.nsSet !== undefined && s.nsSet !== reference) {
      nsDiffers = true;
      messages.push({ tag: 'TRANSPORT_NS_DIFFERS', args: { ns, transport, ns_set: s.nsSet, udp_ns_set: reference } });
    }
  const encryptedAnswered = answered.some(([t]) => t === 'dot' || t === 'doh');
  if (encryptedAnswered && serials.size === 1 && !nsDiffers)
    messages.push({ tag: 'TRANSPORT_SAME_ANSWERS', args: { ns, transports: answered.map(([t]) => t).join(',') } });
  const dotUsable = usable(dotSoa);
  if (dotSoa)
    messages.push({
      tag: !dotUsable ? 'RFC9539_NOT_USED' : authenticated(dotSoa.session) ? 'RFC9539_AUTHENTICATED' : 'RFC9539_OPPORTUNISTIC_ONLY',
      args: { ns },
    });
  return { messages, dotUsable };
}

export const transport03: TestCase = {
  id: 'Transport03',
  spec: 'RFC 9539 §4, RFC 8310 §5, RFC 7858 §3',
  tags: consistencyTags,
  async run(context) {
    const servers = await testedServers(context);
    const results = await Promise.all(servers.map((s) => checkServer(s, context)));
    const messages = results.flatMap((r) => r.messages);
    if (servers.length > 0 && !results.some((r) => r.dotUsable)) messages.push({ tag: 'TRANSPORT_NO_DOT', args: {} });
    return messages;
  },
};
