// The protocol compliance tests of ISC's DNS compliance tester (genreport), as data: each test's
// name and group as genreport lists them, the query it sends, and the dig command that sends the same
// query (genreport's `-D`), so that a result compares with an ednscomp report line by line.
import { Name, RRType, type TsigKey } from '@app/dns';

export type ProtocolGroup = 'EDNS' | 'FULL' | 'COMMON';

/** EDNS option codes the tests send (RFC 6891 registry). */
export const OptionCode = { NSID: 3, ECS: 8, EXPIRE: 9, COOKIE: 10, UNDEFINED: 100 } as const;

/** The client cookie genreport sends, so answers compare with its reports. */
export const testClientCookie = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);

export interface ProtocolOption {
  code: number;
  data: Uint8Array;
}

export interface ProtocolTest {
  name: string;
  group: ProtocolGroup;
  qtype: number;
  /** Without it the query carries no OPT record. */
  edns?: {
    version: number;
    udpSize: number;
    do?: boolean;
    /** Flag bits besides DO. */ flags?: number;
    options?: readonly ProtocolOption[];
  };
  tcp?: boolean;
  /** A truncated UDP reply is the result (no retry over TCP). */
  ignoreTc?: boolean;
  rd?: boolean;
  cd?: boolean;
  ad?: boolean;
  aa?: boolean;
  ra?: boolean;
  tc?: boolean;
  z?: boolean;
  /** Non-zero: the request has this opcode and no question. */
  opcode?: number;
  /** The request is signed with the well-known key (`dnswkk`). */
  tsig?: boolean;
  /** Results that say the server lacks an optional feature rather than mishandles the query. */
  absent?: readonly string[];
  /** dig's arguments after `@server`; `<zone>` stands for the zone. genreport prints `+ignoretc`, which dig spells `+ignore`. */
  dig: string;
}

const nsid: ProtocolOption = { code: OptionCode.NSID, data: new Uint8Array() };
// ECS for 0.0.0.0/0: family 1, source and scope prefix 0, no address bytes (RFC 7871 §6).
const ecs: ProtocolOption = { code: OptionCode.ECS, data: Uint8Array.from([0, 1, 0, 0]) };
const expire: ProtocolOption = { code: OptionCode.EXPIRE, data: new Uint8Array() };
const cookie: ProtocolOption = { code: OptionCode.COOKIE, data: testClientCookie };
const undefinedOption: ProtocolOption = { code: OptionCode.UNDEFINED, data: new Uint8Array() };

const edns0 = (extra: Omit<NonNullable<ProtocolTest['edns']>, 'version' | 'udpSize'> = {}): ProtocolTest['edns'] => ({
  version: 0,
  udpSize: 4096,
  ...extra,
});
const edns1 = (extra: Omit<NonNullable<ProtocolTest['edns']>, 'version' | 'udpSize'> = {}): ProtocolTest['edns'] => ({
  version: 1,
  udpSize: 4096,
  ...extra,
});
const SOA = RRType.SOA;

/** In genreport's order, which is the order of its report lines. */
export const protocolTests: readonly ProtocolTest[] = [
  { name: 'dns', group: 'EDNS', qtype: SOA, dig: '+noedns +noad +norec SOA <zone>' },
  { name: 'aa', group: 'FULL', qtype: SOA, aa: true, dig: '+noedns +noad +norec +aaflag SOA <zone>' },
  { name: 'ad', group: 'FULL', qtype: SOA, ad: true, dig: '+noedns +ad +norec SOA <zone>' },
  { name: 'cd', group: 'FULL', qtype: SOA, cd: true, dig: '+noedns +noad +norec +cd SOA <zone>' },
  { name: 'ra', group: 'FULL', qtype: SOA, ra: true, dig: '+noedns +noad +norec +raflag SOA <zone>' },
  { name: 'rd', group: 'FULL', qtype: SOA, rd: true, dig: '+noedns +noad +rec SOA <zone>' },
  { name: 'tc', group: 'FULL', qtype: SOA, tc: true, dig: '+noedns +noad +norec +tcflag SOA <zone>' },
  { name: 'zflag', group: 'FULL', qtype: SOA, z: true, dig: '+noedns +noad +norec +zflag SOA <zone>' },
  { name: 'opcode', group: 'FULL', qtype: SOA, opcode: 15, dig: '+noedns +noad +norec +header-only +opcode=15' },
  {
    name: 'opcodeflg',
    group: 'FULL',
    qtype: SOA,
    opcode: 15,
    tc: true,
    rd: true,
    ra: true,
    cd: true,
    ad: true,
    aa: true,
    z: true,
    dig: '+noedns +header-only +opcode=15 +tcflag +rec +raflag +cd +ad +aaflag +zflag',
  },
  { name: 'type666', group: 'FULL', qtype: 666, dig: '+noedns +noad +norec TYPE666 <zone>' },
  { name: 'tcp', group: 'FULL', qtype: SOA, tcp: true, dig: '+noedns +noad +norec +tcp SOA <zone>' },
  { name: 'edns', group: 'EDNS', qtype: SOA, edns: edns0(), dig: '+edns=0 +nocookie +noad +norec SOA <zone>' },
  { name: 'edns1', group: 'EDNS', qtype: SOA, edns: edns1(), dig: '+edns=1 +noednsneg +nocookie +noad +norec SOA <zone>' },
  {
    name: 'edns@512',
    group: 'EDNS',
    qtype: RRType.DNSKEY,
    edns: { version: 0, udpSize: 512, do: true },
    ignoreTc: true,
    dig: '+edns=0 +nocookie +noad +norec +dnssec +ignore +bufsize=512 DNSKEY <zone>',
  },
  {
    name: 'ednsopt',
    group: 'EDNS',
    qtype: SOA,
    edns: edns0({ options: [undefinedOption] }),
    dig: '+edns=0 +nocookie +noad +norec +ednsopt=100 SOA <zone>',
  },
  {
    name: 'edns1opt',
    group: 'EDNS',
    qtype: SOA,
    edns: edns1({ options: [undefinedOption] }),
    dig: '+edns=1 +noednsneg +nocookie +noad +norec +ednsopt=100 SOA <zone>',
  },
  { name: 'do', group: 'EDNS', qtype: SOA, edns: edns0({ do: true }), dig: '+edns=0 +nocookie +noad +norec +dnssec SOA <zone>' },
  {
    name: 'docd',
    group: 'FULL',
    qtype: SOA,
    edns: edns0({ do: true }),
    cd: true,
    dig: '+edns=0 +nocookie +noad +norec +dnssec +cd SOA <zone>',
  },
  {
    name: 'edns1do',
    group: 'FULL',
    qtype: SOA,
    edns: edns1({ do: true }),
    dig: '+edns=1 +noednsneg +nocookie +noad +norec +dnssec SOA <zone>',
  },
  {
    name: 'ednsflags',
    group: 'EDNS',
    qtype: SOA,
    edns: edns0({ flags: 0x0080 }),
    dig: '+edns=0 +nocookie +noad +norec +ednsflags=0x0080 SOA <zone>',
  },
  {
    name: 'optlist',
    group: 'EDNS',
    qtype: SOA,
    edns: edns0({ options: [nsid, ecs, expire, cookie] }),
    dig: '+edns=0 +noad +norec +nsid +subnet=0.0.0.0/0 +expire +cookie=0102030405060708 SOA <zone>',
  },
  { name: 'ednsnsid', group: 'FULL', qtype: SOA, edns: edns0({ options: [nsid] }), dig: '+edns=0 +nocookie +noad +norec +nsid SOA <zone>' },
  {
    name: 'ednscookie',
    group: 'FULL',
    qtype: SOA,
    edns: edns0({ options: [cookie] }),
    dig: '+edns=0 +noad +norec +cookie=0102030405060708 SOA <zone>',
  },
  {
    name: 'ednsexpire',
    group: 'FULL',
    qtype: SOA,
    edns: edns0({ options: [expire] }),
    dig: '+edns=0 +nocookie +noad +norec +expire SOA <zone>',
  },
  {
    name: 'ednssubnet',
    group: 'FULL',
    qtype: SOA,
    edns: edns0({ options: [ecs] }),
    dig: '+edns=0 +nocookie +noad +norec +subnet=0.0.0.0/0 SOA <zone>',
  },
  {
    name: 'edns1nsid',
    group: 'FULL',
    qtype: SOA,
    edns: edns1({ options: [nsid] }),
    dig: '+edns=1 +noednsneg +nocookie +noad +norec +nsid SOA <zone>',
  },
  {
    name: 'edns1cookie',
    group: 'FULL',
    qtype: SOA,
    edns: edns1({ options: [cookie] }),
    dig: '+edns=1 +noednsneg +noad +norec +cookie=0102030405060708 SOA <zone>',
  },
  {
    name: 'edns1expire',
    group: 'FULL',
    qtype: SOA,
    edns: edns1({ options: [expire] }),
    dig: '+edns=1 +noednsneg +nocookie +noad +norec +expire SOA <zone>',
  },
  {
    name: 'edns1subnet',
    group: 'FULL',
    qtype: SOA,
    edns: edns1({ options: [ecs] }),
    dig: '+edns=1 +noednsneg +nocookie +noad +norec +subnet=0.0.0.0/0 SOA <zone>',
  },
  {
    name: 'ednstcp',
    group: 'EDNS',
    qtype: RRType.DNSKEY,
    edns: { version: 0, udpSize: 512, do: true },
    tcp: true,
    dig: '+edns=0 +nocookie +noad +norec +dnssec +bufsize=512 +tcp DNSKEY <zone>',
  },
  {
    name: 'bind11',
    group: 'COMMON',
    qtype: SOA,
    edns: edns0({ do: true, options: [cookie] }),
    dig: '+edns=0 +cookie=0102030405060708 +noad +norec +dnssec SOA <zone>',
  },
  {
    // A server without the well-known key refuses it (NOTAUTH, BADKEY or no TSIG at all), as it may.
    name: 'dnswkk',
    group: 'FULL',
    qtype: SOA,
    tsig: true,
    absent: ['notauth,badkey', 'notauth,notsig'],
    dig: '+noedns +noad +norec -y hmac-sha256:.:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= SOA <zone>',
  },
  {
    name: 'dig11',
    group: 'COMMON',
    qtype: SOA,
    edns: edns0({ options: [cookie] }),
    rd: true,
    ad: true,
    dig: '+edns=0 +cookie=0102030405060708 +ad +rec SOA <zone>',
  },
];

/** genreport's well-known TSIG key: named `.`, HMAC-SHA256, 32 zero bytes. A server should not know it. */
export const wellKnownKey: TsigKey = { name: Name.root, algorithm: 'hmac-sha256', secret: new Uint8Array(32) };

/** Whether the test sends a client cookie (a BADCOOKIE answer with a server cookie is then fine). */
export const sendsCookie = (test: ProtocolTest): boolean => test.edns?.options?.some((o) => o.code === OptionCode.COOKIE) ?? false;

/** The `dig` command that sends the test's query to `address` for `zone`. */
export function digCommand(test: ProtocolTest, zone: string, address: string): string {
  return `dig @${address} ${test.dig.replace('<zone>', zone)}`;
}

/**
 * `signed` is not a query of its own: genreport reports the `do` test's result there, with `,yes`
 * when that answer carried an RRSIG (the zone is signed), just before `ednstcp`.
 */
export const signedTest = 'signed';
