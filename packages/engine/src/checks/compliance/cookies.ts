// DNS cookies per name server address (RFC 7873, RFC 9018): a server cookie comes back with the
// client's echoed, of a length within bounds; the server cookie is accepted on the next query; a wrong
// one is answered as RFC 7873 §5.2.3 allows (BADCOOKIE or a normal answer, each with a fresh cookie);
// names of the zone's servers that share an address accept each other's cookies.
import { randomBytes } from 'node:crypto';
import { Rcode, RRType, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase, TestContext } from '../../framework/test-case.ts';
import type { Nameserver, QueryFlags } from '../../net/nameserver-client.ts';
import { rcodeName } from '../../net/response.ts';
import { OptionCode } from './protocol-tests.ts';
import { probedServers, serversAhead } from './servers.ts';

const BADCOOKIE = 23;

const cookieFlags = (data: Uint8Array): QueryFlags => ({
  dnssec: false,
  edns: { version: 0, udpSize: 4096, options: [{ code: OptionCode.COOKIE, data }] },
});

/** The COOKIE option of a reply, split into client and server cookie. */
function cookieOf(reply: DnsMessage | undefined): { client: Uint8Array; server: Uint8Array } | undefined {
  const option = reply?.edns?.options.find((o) => o.code === OptionCode.COOKIE);
  return option && { client: option.data.subarray(0, 8), server: option.data.subarray(8) };
}

const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);
const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => Uint8Array.from([...a, ...b]);
const rcodeText = (reply: DnsMessage): string => (reply.rcode === BADCOOKIE ? 'BADCOOKIE' : rcodeName(reply.rcode));

/** Fresh means: the client's cookie echoed and a server cookie of 8 to 32 bytes (RFC 7873 §4.2). */
const freshFor = (reply: DnsMessage | undefined, client: Uint8Array): boolean => {
  const cookie = cookieOf(reply);
  return cookie !== undefined && same(cookie.client, client) && cookie.server.length >= 8 && cookie.server.length <= 32;
};

async function checkServer(zone: TestContext['zone'], server: Nameserver, sameAddress: Nameserver[]): Promise<Message[]> {
  const ns = server.toString();
  const client = new Uint8Array(randomBytes(8));
  const first = (await server.probe(zone.name, RRType.SOA, cookieFlags(client)))?.message;
  if (!first) return [];
  const cookie = cookieOf(first);
  if (!cookie) return [{ tag: 'COOKIE_NOT_SUPPORTED', args: { ns } }];
  const messages: Message[] = [];
  if (!same(cookie.client, client)) messages.push({ tag: 'COOKIE_CLIENT_NOT_ECHOED', args: { ns } });
  if (cookie.server.length < 8 || cookie.server.length > 32)
    messages.push({ tag: 'COOKIE_BAD_LENGTH', args: { ns, length: cookie.server.length } });
  if (messages.length > 0) return messages;

  const valid = concat(client, cookie.server);
  // The wrong one: the server cookie with every bit flipped, the same length.
  const wrong = concat(
    client,
    cookie.server.map((byte) => byte ^ 0xff),
  );
  const [again, refused, ...others] = await Promise.all([
    server.probe(zone.name, RRType.SOA, cookieFlags(valid)),
    server.probe(zone.name, RRType.SOA, cookieFlags(wrong)),
    ...sameAddress.map((other) => other.probe(zone.name, RRType.SOA, cookieFlags(valid))),
  ]);
  const accepted = (reply: DnsMessage | undefined): boolean =>
    reply !== undefined && reply.rcode === Rcode.NOERROR && freshFor(reply, client);
  if (again?.message && !accepted(again.message))
    messages.push({ tag: 'COOKIE_VALID_REJECTED', args: { ns, rcode: rcodeText(again.message) } });
  const wrongReply = refused?.message;
  if (wrongReply) {
    const fresh = freshFor(wrongReply, client) && !same(cookieOf(wrongReply)!.server, wrong.subarray(8));
    const allowed = fresh && (wrongReply.rcode === BADCOOKIE || wrongReply.rcode === Rcode.NOERROR);
    if (!allowed) messages.push({ tag: 'COOKIE_WRONG_MISHANDLED', args: { ns, rcode: rcodeText(wrongReply) } });
  }
  others.forEach((outcome, i) => {
    if (outcome?.message && !accepted(outcome.message))
      messages.push({ tag: 'COOKIE_SHARED_ADDRESS_REJECTED', args: { ns, ns2: sameAddress[i].toString() } });
  });
  if (messages.length === 0) messages.push({ tag: 'COOKIE_OK', args: { ns, length: cookie.server.length } });
  return messages;
}

export const cookies: TestCase = {
  id: 'Compliance03',
  spec: 'RFC 7873 §5.2-5.4, RFC 9018 §3-4',
  tags: [
    'COOKIE_NOT_SUPPORTED',
    'COOKIE_CLIENT_NOT_ECHOED',
    'COOKIE_BAD_LENGTH',
    'COOKIE_VALID_REJECTED',
    'COOKIE_WRONG_MISHANDLED',
    'COOKIE_SHARED_ADDRESS_REJECTED',
    'COOKIE_OK',
  ],
  besideBasic: true,
  lookAhead: serversAhead,
  async run(context) {
    const { zone } = context;
    const servers = await probedServers(context);
    // The first name at each address is asked; the others at that address must take its cookie.
    const byAddress = Map.groupBy(servers, (s) => s.address);
    const results = await Promise.all([...byAddress.values()].map(([first, ...rest]) => checkServer(zone, first, rest)));
    return results.flat();
  },
};
