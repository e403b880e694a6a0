// Whether a signed zone's names can be listed from its denial records: NSEC names them outright, so the
// chain is followed and the names counted; NSEC3 gives hashes, shown for the names asked, with its
// parameters held against RFC 9276's advice.
import { base32hexEncode, Name, nsec3Covers, nsec3Hash, nsec3Matches, recordIs, RRType, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../../finding.ts';
import type { TestCase, TestContext } from '../../framework/test-case.ts';
import type { Nameserver } from '../../net/nameserver-client.ts';
import { displayName as nameText } from '../../net/response.ts';
import { walkNsec } from './nsec-walk.ts';
import { advisedAgainst, optOut } from './nsec3-advice.ts';

/** A name no zone should have, asked for to see the zone's denial records. */
export const probeLabel = 'nx-zone-integrity-probe';
/** More names than this and the zone counts as listable all the same: the walk stops there. */
export const walkLimit = 200;
const SHA1 = 1;

const saltText = (salt: Uint8Array): string => (salt.length === 0 ? '-' : Buffer.from(salt).toString('hex'));

async function denialAnswer(context: TestContext): Promise<{ server: Nameserver; response: DnsMessage } | undefined> {
  const { zone } = context;
  const probe = Name.fromString(probeLabel, zone.name);
  const servers = (await zone.allServers()).filter((s) => zone.familyEnabled(s.family));
  for (const server of servers) {
    const response = await server.query(probe, RRType.A, { dnssec: true });
    if (response !== undefined && response.aa && (response.rcode === 0 || response.rcode === 3)) return { server, response };
  }
  return undefined;
}

function nsec3Messages(context: TestContext, response: DnsMessage): Message[] {
  const { zone } = context;
  const records = response.authority.filter((rr) => recordIs(rr, RRType.NSEC3)).map((rr) => ({ name: rr.name, rdata: rr.rdata }));
  const { rdata } = records[0];
  const domain = zone.nameText;
  const salt = saltText(rdata.salt);
  const messages: Message[] = [];
  if (rdata.hashAlgorithm !== SHA1) return [{ tag: 'NSEC3_UNKNOWN_HASH', args: { domain, algorithm: rdata.hashAlgorithm } }];
  const anyOptOut = records.some((r) => optOut(r.rdata));
  messages.push({
    tag: 'NSEC3_HASHED_NAMES',
    args: { domain, iterations: rdata.iterations, salt, opt_out: anyOptOut, guess_cost: rdata.iterations + 1 },
  });
  for (const name of [zone.name, Name.fromString(probeLabel, zone.name)]) {
    const hash = base32hexEncode(nsec3Hash(name, rdata.salt, rdata.iterations)).toLowerCase();
    const args = { name: nameText(name), hash, salt, iterations: rdata.iterations };
    const matching = records.find((r) => nsec3Matches(r, name));
    const covering = records.find((r) => nsec3Covers(r, name));
    if (matching) messages.push({ tag: 'NSEC3_HASH_MATCHED', args: { ...args, owner: nameText(matching.name) } });
    else if (covering) messages.push({ tag: 'NSEC3_HASH_COVERED', args: { ...args, owner: nameText(covering.name) } });
    else messages.push({ tag: 'NSEC3_HASH', args });
  }
  const advice = advisedAgainst({ ...rdata, flags: anyOptOut ? rdata.flags | 1 : rdata.flags });
  if (advice.includes('iterations')) messages.push({ tag: 'NSEC3_ITERATIONS_NOT_ZERO', args: { domain, iterations: rdata.iterations } });
  if (advice.includes('salt')) messages.push({ tag: 'NSEC3_SALT_USED', args: { domain, salt } });
  if (advice.includes('opt-out')) messages.push({ tag: 'NSEC3_OPT_OUT', args: { domain } });
  if (advice.length === 0) messages.push({ tag: 'NSEC3_PARAMETERS_ADVISED', args: { domain } });
  return messages;
}

async function run(context: TestContext): Promise<Message[]> {
  const domain = context.zone.nameText;
  const found = await denialAnswer(context);
  if (found === undefined) return [{ tag: 'DENIAL_NO_ANSWER', args: { domain } }];
  const { server, response } = found;
  if (response.authority.some((rr) => recordIs(rr, RRType.NSEC3))) return nsec3Messages(context, response);
  if (!response.authority.some((rr) => recordIs(rr, RRType.NSEC))) return [{ tag: 'DENIAL_NONE', args: { domain } }];
  const walk = await walkNsec(server, context.zone.name, walkLimit);
  const args = { domain, ns: server.toString(), names: walk.names.length, queries: walk.queries };
  const sample = walk.names.slice(0, 5).map(nameText).join(' ');
  if (walk.outcome === 'complete') return [{ tag: 'NSEC_WALKED', args: { ...args, sample } }];
  if (walk.outcome === 'limit') return [{ tag: 'NSEC_WALK_LIMIT', args: { ...args, sample } }];
  return [{ tag: 'NSEC_WALK_STOPPED', args: { ...args, at: nameText(walk.names[walk.names.length - 1]) } }];
}

export const zoneIntegrity02: TestCase = {
  id: 'ZoneIntegrity02',
  spec: 'RFC 4034 §4 (NSEC), RFC 5155 (NSEC3), RFC 9276 §3.1 (NSEC3 parameters)',
  tags: [
    'DENIAL_NO_ANSWER',
    'DENIAL_NONE',
    'NSEC_WALKED',
    'NSEC_WALK_LIMIT',
    'NSEC_WALK_STOPPED',
    'NSEC3_UNKNOWN_HASH',
    'NSEC3_HASHED_NAMES',
    'NSEC3_HASH_MATCHED',
    'NSEC3_HASH_COVERED',
    'NSEC3_HASH',
    'NSEC3_ITERATIONS_NOT_ZERO',
    'NSEC3_SALT_USED',
    'NSEC3_OPT_OUT',
    'NSEC3_PARAMETERS_ADVISED',
  ],
  run,
};
