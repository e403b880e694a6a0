// Syntax: are the domain's own name, its name server names, the SOA MNAME and RNAME and the MX names
// well formed? Tags and levels follow the reference engine 9.0 (specifications:
// docs/public/specifications/tests/Syntax-TP/ in zonemaster/zonemaster). As in the reference, Syntax04–08
// run only when the domain name passed Syntax01, and Syntax06–07 only when Syntax05 got the SOA; those
// that ask servers start after the modules the reference runs before Syntax, so a server found silent
// there is silent here too.
import { Name, RRType, recordIs, type Message as DnsMessage } from '@app/dns';
import type { Message } from '../finding.ts';
import type { TestCase, TestContext, TestModule } from '../framework/test-case.ts';
import { lookupThroughAlias } from '../net/alias-lookup.ts';
import type { Nameserver } from '../net/nameserver-client.ts';
import { recordsOfType } from '../net/response.ts';
import { isValidMailAddress, rnameToAddress } from '../rules/mailbox.ts';
import {
  endsWithHyphen,
  hasDiscouragedDoubleDash,
  hasOnlyAllowedChars,
  hostNameMessages,
  labelsOf,
  nameText,
  startsWithHyphen,
} from '../rules/name-syntax.ts';

const specs = 'zonemaster/zonemaster docs/public/specifications/tests/Syntax-TP';

const noSoa: Message = { tag: 'NO_RESPONSE_SOA_QUERY', args: {} };

function emitted(context: TestContext, testCase: string, tag: string): boolean {
  return context.earlier.some((f) => f.testcase === testCase && f.tag === tag);
}

/**
 * Syntax04–08 need a domain name of allowed characters. When Syntax01 is not part of the run at all
 * (only a later test case was asked for), they run, as the reference's single test case entry does.
 */
function nameIsClean(context: TestContext): { run: boolean } {
  const syntax01Ran = context.earlier.some((f) => f.testcase === 'Syntax01');
  return { run: !syntax01Ran || emitted(context, 'Syntax01', 'ONLY_ALLOWED_CHARS') };
}

function soaOf(response: DnsMessage | undefined): { mname: Name; rname: Name } | undefined {
  const soa = response ? recordsOfType(response, RRType.SOA, ['answer'])[0] : undefined;
  return soa && recordIs(soa, RRType.SOA) ? soa.rdata : undefined;
}

/** Names in records as the reference shows them: final dot included. */
function fqdnText(name: Name): string {
  const text = nameText(name);
  return text === '.' ? text : `${text}.`;
}

export const syntax01: TestCase = {
  id: 'Syntax01',
  spec: `${specs}/syntax01.md`,
  tags: ['ONLY_ALLOWED_CHARS', 'NON_ALLOWED_CHARS'],
  run({ domain }) {
    return Promise.resolve([{ tag: hasOnlyAllowedChars(labelsOf(domain)) ? 'ONLY_ALLOWED_CHARS' : 'NON_ALLOWED_CHARS', args: { domain } }]);
  },
};

export const syntax02: TestCase = {
  id: 'Syntax02',
  spec: `${specs}/syntax02.md`,
  tags: ['INITIAL_HYPHEN', 'TERMINAL_HYPHEN', 'NO_ENDING_HYPHENS'],
  run({ domain }) {
    const labels = labelsOf(domain);
    const messages: Message[] = labels.flatMap((label) => [
      ...(startsWithHyphen(label) ? [{ tag: 'INITIAL_HYPHEN', args: { label, domain } }] : []),
      ...(endsWithHyphen(label) ? [{ tag: 'TERMINAL_HYPHEN', args: { label, domain } }] : []),
    ]);
    if (labels.length > 0 && messages.length === 0) messages.push({ tag: 'NO_ENDING_HYPHENS', args: { domain } });
    return Promise.resolve(messages);
  },
};

export const syntax03: TestCase = {
  id: 'Syntax03',
  spec: `${specs}/syntax03.md`,
  tags: ['DISCOURAGED_DOUBLE_DASH', 'NO_DOUBLE_DASH'],
  run({ domain }) {
    const labels = labelsOf(domain);
    const messages: Message[] = labels
      .filter(hasDiscouragedDoubleDash)
      .map((label) => ({ tag: 'DISCOURAGED_DOUBLE_DASH', args: { label, domain } }));
    if (labels.length > 0 && messages.length === 0) messages.push({ tag: 'NO_DOUBLE_DASH', args: { domain } });
    return Promise.resolve(messages);
  },
};

/** Syntax04: every NS name, at the parent (Method 2) and in the zone (Method 3). */
export const syntax04: TestCase = {
  id: 'Syntax04',
  spec: `${specs}/syntax04.md`,
  afterEarlierModules: true,
  after: ['Syntax01'],
  tags: ['NAMESERVER_DISCOURAGED_DOUBLE_DASH', 'NAMESERVER_NON_ALLOWED_CHARS', 'NAMESERVER_NUMERIC_TLD', 'NAMESERVER_SYNTAX_OK'],
  precondition: nameIsClean,
  async run({ zone }) {
    const [atParent, inZone] = await Promise.all([zone.glueNames(), zone.childNsNames()]);
    const names = [...new Set([...atParent, ...inZone].map(nameText))];
    return names.flatMap((name) => hostNameMessages('NAMESERVER', name));
  },
};

/** Syntax05: no '@' in the SOA RNAME (it would be a mail address written the wrong way). */
export const syntax05: TestCase = {
  id: 'Syntax05',
  spec: `${specs}/syntax05.md`,
  afterEarlierModules: true,
  after: ['Syntax01'],
  tags: ['RNAME_MISUSED_AT_SIGN', 'RNAME_NO_AT_SIGN', 'NO_RESPONSE_SOA_QUERY'],
  precondition: nameIsClean,
  async run({ zone }) {
    const soa = soaOf(await zone.queryOne(zone.name, RRType.SOA));
    if (!soa) return [noSoa];
    const rname = fqdnText(soa.rname);
    return [{ tag: rname.replaceAll('\\.', '.').includes('@') ? 'RNAME_MISUSED_AT_SIGN' : 'RNAME_NO_AT_SIGN', args: { rname } }];
  },
};

/** Whether Syntax05 found the SOA: Syntax06 and Syntax07 run only then. */
function soaWasFound(context: TestContext): { run: boolean } {
  return { run: nameIsClean(context).run && !emitted(context, 'Syntax05', 'NO_RESPONSE_SOA_QUERY') };
}

/**
 * Syntax06: the RNAME is a valid mail address whose mail servers (its domain's MX hosts, or the domain
 * itself) have an address, not a loopback one. Each mail server is judged once for the whole run, and
 * the RNAMEs are called valid only when no mail server failed.
 */
export const syntax06: TestCase = {
  id: 'Syntax06',
  spec: `${specs}/syntax06.md`,
  afterEarlierModules: true,
  after: ['Syntax01', 'Syntax05'],
  tags: [
    'NO_RESPONSE',
    'NO_RESPONSE_SOA_QUERY',
    'RNAME_MAIL_DOMAIN_INVALID',
    'RNAME_MAIL_DOMAIN_LOCALHOST',
    'RNAME_MAIL_ILLEGAL_CNAME',
    'RNAME_RFC822_INVALID',
    'RNAME_RFC822_VALID',
    'IPV4_DISABLED',
    'IPV6_DISABLED',
  ],
  precondition: soaWasFound,
  // Its lookups are a chain of six round trips (MX, then A and AAAA, each from the root): started as
  // soon as the zone's SOA is found on the way down, with its RNAME.
  async lookAhead(context) {
    const soa = soaOf((await context.zone.resolve(context.zone.name, RRType.SOA)).message);
    const rname = soa ? rnameToAddress(fqdnText(soa.rname)) : undefined;
    if (!rname || !isValidMailAddress(rname)) return;
    const mailServers = await mailServersOf(context, rname.slice(rname.lastIndexOf('@') + 1));
    await Promise.all((mailServers ?? []).map((mailServer) => mailServerMessages(context, mailServer)));
  },
  async run(context) {
    const { zone, profile } = context;
    const byText = new Map((await zone.allServers()).map((server) => [server.toString(), server]));
    const servers = [...byText.keys()].sort().map((key) => byText.get(key)!);
    const on = (server: Nameserver): boolean => (server.family === 4 ? profile.net.ipv4 : profile.net.ipv6);
    const responses = await Promise.all(
      servers.map((server) => (on(server) ? server.query(zone.name, RRType.SOA, { tcp: false }) : Promise.resolve(undefined))),
    );
    const messages: Message[] = [];
    const judged = new Set<string>();
    const candidates = new Set<string>();
    let invalidServers: number | undefined;
    for (const [i, server] of servers.entries()) {
      if (!on(server)) {
        messages.push({ tag: `IPV${server.family}_DISABLED`, args: { ns: server.toString(), rrtype: 'SOA' } });
        continue;
      }
      const response = responses[i];
      if (!response) {
        messages.push({ tag: 'NO_RESPONSE', args: { ns: server.toString(), domain: zone.nameText } });
        continue;
      }
      const soa = soaOf(response);
      if (!soa) {
        messages.push(noSoa);
        continue;
      }
      const rname = rnameToAddress(fqdnText(soa.rname));
      if (!isValidMailAddress(rname)) {
        messages.push({ tag: 'RNAME_RFC822_INVALID', args: { rname } });
        continue;
      }
      const mailServers = await mailServersOf(context, rname.slice(rname.lastIndexOf('@') + 1));
      if (!mailServers) {
        messages.push({ tag: 'RNAME_MAIL_DOMAIN_INVALID', args: { domain: rname.slice(rname.lastIndexOf('@') + 1) } });
        continue;
      }
      for (const mailServer of mailServers) {
        if (judged.has(mailServer.shown)) continue;
        judged.add(mailServer.shown);
        invalidServers ??= 0;
        const verdict = await mailServerMessages(context, mailServer);
        messages.push(...verdict.messages);
        if (verdict.valid) candidates.add(rname);
        else {
          messages.push({ tag: 'RNAME_MAIL_DOMAIN_INVALID', args: { domain: mailServer.shown } });
          candidates.delete(rname);
          invalidServers++;
        }
      }
    }
    if (invalidServers === 0) for (const rname of [...candidates].sort()) messages.push({ tag: 'RNAME_RFC822_VALID', args: { rname } });
    return messages;
  },
};

interface MailServer {
  name: Name;
  /** As findings show it: an MX exchange with its final dot, a mail domain without. */
  shown: string;
  /**
   * An MX exchange: 9.0.1 counts only address records whose owner, as the server wrote it, is the
   * exchange's text exactly, case included (so 'Mail.Example.' finds no address at 'Mail.example.').
   */
  exactOwner: boolean;
}

/** The mail servers of a mail domain: its MX exchanges, or the domain itself; undefined when the MX lookup fails. */
async function mailServersOf({ zone }: TestContext, domainText: string): Promise<MailServer[] | undefined> {
  const domain = Name.fromString(`${domainText}.`);
  const mx = await zone.recurse(domain, RRType.MX);
  if (!mx.message || mx.message.rcode !== 0) return undefined;
  // An alias followed, in this answer or by a new lookup: its target is the mail domain.
  let canonical = mx.canonical;
  const aliases = new Map(
    recordsOfType(mx.message, RRType.CNAME, ['answer']).flatMap((rr) =>
      recordIs(rr, RRType.CNAME) ? [[rr.name.key(), rr.rdata.target] as const] : [],
    ),
  );
  for (let hops = 0; aliases.has(canonical.key()) && hops < 16; hops++) canonical = aliases.get(canonical.key())!;
  const exchanges = recordsOfType(mx.message, RRType.MX).flatMap((rr) =>
    recordIs(rr, RRType.MX) && rr.name.equals(canonical) ? [rr.rdata.exchange] : [],
  );
  if (exchanges.length === 0)
    return [{ name: canonical, shown: canonical.equals(domain) ? domainText : nameText(canonical), exactOwner: false }];
  const unique = new Map(exchanges.map((name) => [fqdnText(name), name]));
  return [...unique].map(([shown, name]) => ({ name, shown, exactOwner: true }));
}

/** One mail server's addresses: valid when it has one that is not a loopback address. */
async function mailServerMessages(
  { zone }: TestContext,
  { name, shown, exactOwner }: MailServer,
): Promise<{ valid: boolean; messages: Message[] }> {
  const messages: Message[] = [];
  let valid = false;
  const families = [
    [RRType.A, '127.0.0.1'],
    [RRType.AAAA, '::1'],
  ] as const;
  // Both looked up at once (neither asks SOA, so neither can make a server silent for the other), judged in turn.
  // An alias shows only when its target's record came in the same answer; otherwise the target is
  // looked up again, and its records are not the mail server's own.
  const lookups = await Promise.all(families.map(([type]) => lookupThroughAlias(zone, name, type)));
  for (const [i, [type, loopback]] of families.entries()) {
    const { message } = lookups[i];
    if (!message) continue;
    if (recordsOfType(message, RRType.CNAME, ['answer']).length > 0) {
      messages.push({ tag: 'RNAME_MAIL_ILLEGAL_CNAME', args: { domain: shown } });
      continue;
    }
    const owns = (owner: Name): boolean => (exactOwner ? fqdnText(owner) === shown : owner.equals(name));
    const addresses = recordsOfType(message, type, ['answer']).flatMap((rr) =>
      (recordIs(rr, RRType.A) || recordIs(rr, RRType.AAAA)) && owns(rr.name) ? [rr.rdata.address] : [],
    );
    if (addresses.includes(loopback)) messages.push({ tag: 'RNAME_MAIL_DOMAIN_LOCALHOST', args: { domain: shown, localhost: loopback } });
    else if (addresses.length > 0) valid = true;
  }
  return { valid, messages };
}

/** Syntax07: the SOA MNAME is a valid host name. */
export const syntax07: TestCase = {
  id: 'Syntax07',
  spec: `${specs}/syntax07.md`,
  afterEarlierModules: true,
  after: ['Syntax01', 'Syntax05'],
  tags: ['MNAME_DISCOURAGED_DOUBLE_DASH', 'MNAME_NON_ALLOWED_CHARS', 'MNAME_NUMERIC_TLD', 'MNAME_SYNTAX_OK', 'NO_RESPONSE_SOA_QUERY'],
  precondition: soaWasFound,
  async run({ zone }) {
    const soa = soaOf(await zone.queryOne(zone.name, RRType.SOA));
    return soa ? hostNameMessages('MNAME', nameText(soa.mname)) : [noSoa];
  },
};

/** Syntax08: every MX target is a valid host name. */
export const syntax08: TestCase = {
  id: 'Syntax08',
  spec: `${specs}/syntax08.md`,
  afterEarlierModules: true,
  after: ['Syntax01'],
  tags: ['MX_DISCOURAGED_DOUBLE_DASH', 'MX_NON_ALLOWED_CHARS', 'MX_NUMERIC_TLD', 'MX_SYNTAX_OK', 'NO_RESPONSE_MX_QUERY'],
  precondition: nameIsClean,
  async run({ zone }) {
    const response = await zone.queryOne(zone.name, RRType.MX);
    if (!response) return [{ tag: 'NO_RESPONSE_MX_QUERY', args: {} }];
    const exchanges = recordsOfType(response, RRType.MX, ['answer']).flatMap((rr) =>
      recordIs(rr, RRType.MX) ? [fqdnText(rr.rdata.exchange)] : [],
    );
    return [...new Set(exchanges)].sort().flatMap((exchange) => hostNameMessages('MX', exchange === '.' ? '.' : exchange.slice(0, -1)));
  },
};

export const syntax: TestModule = {
  name: 'SYNTAX',
  testCases: [syntax01, syntax02, syntax03, syntax04, syntax05, syntax06, syntax07, syntax08],
};
