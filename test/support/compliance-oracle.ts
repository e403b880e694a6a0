// The oracle for the Compliance module: each test's verdict read from what `dig` prints when it runs
// the command genreport prints for that test (`genreport -D`), inside the lab. Written apart from the
// engine on purpose: it knows the test only by its dig command and the reply only by dig's text.
// Recorded in test/reference-compliance/ like the reference findings, so CI needs no dig run.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Lab } from '@app/lab';

export const complianceRecordings = resolve(import.meta.dirname, '../reference-compliance');

/** What dig showed of one reply, or why none came. */
export interface DigReply {
  failure?: string;
  opcode: string;
  status: string;
  flags: Set<string>;
  headerMbz: boolean;
  counts: { query: number; answer: number; authority: number; additional: number };
  edns?: { version: number; flags: Set<string>; mbz: boolean; options: Map<string, string> };
  answer: { owner: string; type: string }[];
  size: number;
  /** The TSIG PSEUDOSECTION's record, and whether dig could not verify the reply's signature. */
  tsig?: {
    owner: string;
    ttl: number;
    class: string;
    algorithm: string;
    time: number;
    fudge: number;
    error: string;
    otherLength: number;
    unverified: boolean;
  };
}

export function parseDig(text: string): DigReply {
  const header = /->>HEADER<<- opcode: (\S+), status: (\S+),/.exec(text);
  if (!header) {
    const failure = /Got bad packet|malformed/.test(text)
      ? 'malformed'
      : /connection refused/.test(text)
        ? 'connection-refused'
        : /reset/.test(text)
          ? 'reset'
          : /end of file|EOF/.test(text)
            ? 'eof'
            : /timed out|no servers could be reached/.test(text)
              ? 'timeout'
              : 'failed';
    return {
      failure,
      opcode: '',
      status: '',
      flags: new Set(),
      headerMbz: false,
      counts: { query: 0, answer: 0, authority: 0, additional: 0 },
      answer: [],
      size: 0,
    };
  }
  // A UDP answer with TC is followed by dig's retry over TCP: only the last answer counts.
  const last = text.slice(text.lastIndexOf('->>HEADER<<-'));
  const [, opcode, status] = /->>HEADER<<- opcode: (\S+), status: (\S+),/.exec(last)!;
  const flagLine = /;; flags:([^;]*);(?: MBZ: (0x[0-9a-f]+);)? QUERY: (\d+), ANSWER: (\d+), AUTHORITY: (\d+), ADDITIONAL: (\d+)/.exec(
    last,
  )!;
  const reply: DigReply = {
    opcode,
    status,
    flags: new Set(flagLine[1].trim().split(/\s+/).filter(Boolean)),
    headerMbz: flagLine[2] !== undefined,
    counts: { query: Number(flagLine[3]), answer: Number(flagLine[4]), authority: Number(flagLine[5]), additional: Number(flagLine[6]) },
    answer: [],
    size: Number(/MSG SIZE\s+rcvd: (\d+)/.exec(last)?.[1] ?? 0),
  };
  const ednsLine = /; EDNS: version: (\d+), flags:([^;]*);(?: MBZ: (0x[0-9a-f]+),)? udp: (\d+)/.exec(last);
  if (ednsLine) {
    const options = new Map<string, string>();
    const pseudo = last.slice(
      last.indexOf('; EDNS:'),
      last.indexOf(';; QUESTION SECTION') >= 0 ? last.indexOf(';; QUESTION SECTION') : undefined,
    );
    for (const line of pseudo.split('\n').slice(1)) {
      const option = /^; ([A-Z0-9=-]+):\s?(.*)$/.exec(line);
      if (option) options.set(option[1], option[2]);
    }
    reply.edns = {
      version: Number(ednsLine[1]),
      flags: new Set(ednsLine[2].trim().split(/\s+/).filter(Boolean)),
      mbz: ednsLine[3] !== undefined,
      options,
    };
  }
  const tsigLine = /;; TSIG PSEUDOSECTION:\n(\S+)\s+(\d+)\s+(\S+)\s+TSIG\s+(.*)/.exec(last);
  if (tsigLine) {
    const fields = tsigLine[4].trim().split(/\s+/);
    const [algorithm = '', time = '0', fudge = '0', macSize = '0'] = fields;
    const rest = fields.slice(Number(macSize) > 0 ? 5 : 4);
    reply.tsig = {
      owner: tsigLine[1],
      ttl: Number(tsigLine[2]),
      class: tsigLine[3],
      algorithm,
      time: Number(time),
      fudge: Number(fudge),
      error: rest[1] ?? '',
      otherLength: Number(rest[2] ?? 0),
      unverified: /Couldn't verify signature|Some TSIG could not be validated/.test(text),
    };
  }
  const answerSection = /;; ANSWER SECTION:\n([\s\S]*?)(?:\n\n|\n;;)/.exec(last);
  for (const line of answerSection?.[1].split('\n') ?? []) {
    const [owner, , , type] = line.split(/\s+/);
    if (type) reply.answer.push({ owner: owner.toLowerCase(), type });
  }
  return reply;
}

const rcodeWord = (status: string): string => (status.startsWith('RESERVED') ? `rcode${status.slice(8)}` : status.toLowerCase());
const opcodeWord = (opcode: string): string => (opcode.startsWith('RESERVED') ? `opcode${opcode.slice(8)}` : opcode.toLowerCase());

/** genreport's result words for a test known only by its dig arguments (`<zone>` in them) and dig's reply. */
export function oracleVerdict(digArguments: string, zone: string, reply: DigReply): string {
  if (reply.failure) return reply.failure;
  const has = (option: string): boolean => digArguments.split(/\s+/).includes(option);
  const value = (prefix: string): string | undefined =>
    digArguments
      .split(/\s+/)
      .find((a) => a.startsWith(prefix))
      ?.slice(prefix.length);
  const version = has('+noedns') ? undefined : Number(value('+edns=') ?? 0);
  const opcode = Number(value('+opcode=') ?? 0);
  const sentCookie = value('+cookie=');
  const wantsDo = has('+dnssec');
  const qtype = digArguments.trim().split(/\s+/).at(-2);
  const words: string[] = [];
  let ok = true;
  const bad = (word: string): void => {
    words.push(word);
    ok = false;
  };
  if (opcode !== 0) {
    if (reply.counts.query > 0) bad('non-empty-question-section');
    if (reply.counts.answer > 0) bad('non-empty-answer-section');
    if (reply.counts.authority > 0) bad('non-empty-authority-section');
    if (reply.counts.additional > 0) bad('non-empty-additional-section');
  }
  const edns = opcode === 0 ? reply.edns : undefined;
  const cookieHex = edns?.options.get('COOKIE')?.split(' ')[0] ?? '';
  const cookieLength = cookieHex.length / 2;
  const serverCookie = cookieLength >= 16 && cookieLength <= 40;
  const cookieMatches = serverCookie && sentCookie !== undefined && cookieHex.slice(0, 16).toLowerCase() === sentCookie.toLowerCase();
  if (serverCookie && sentCookie !== undefined && !cookieMatches) ok = false;
  const status = reply.status;
  if (opcodeWord(reply.opcode) !== (opcode === 0 ? 'query' : `opcode${opcode}`)) bad(opcodeWord(reply.opcode));
  let rcodeSaid = false;
  if ((version ?? 0) === 0) {
    if (
      (opcode === 0 && status !== 'NOERROR' && !(sentCookie !== undefined && status === 'BADCOOKIE' && serverCookie)) ||
      (opcode !== 0 && status !== 'NOTIMP')
    ) {
      bad(rcodeWord(status));
      rcodeSaid = true;
    }
  }
  const tsig = reply.tsig;
  if (tsig && tsig.error !== 'NOERROR') {
    if (!rcodeSaid && status !== 'NOTAUTH') bad(rcodeWord(status));
    bad(tsig.error.toLowerCase());
  }
  if (has('-y')) {
    if (!tsig) bad('notsig');
    else {
      if (tsig.class !== 'ANY') bad('tsig-bad-class');
      if (tsig.ttl !== 0) bad('tsig-bad-ttl');
      const wrongKey = tsig.owner !== '.';
      const wrongAlgorithm = tsig.algorithm.toLowerCase() !== 'hmac-sha256.';
      if (wrongKey) bad('tsig-wrong-key');
      if (wrongAlgorithm) bad('tsig-wrong-alg');
      const now = Date.now() / 1000;
      if (tsig.time > now + tsig.fudge || tsig.time < now - tsig.fudge) bad('tsig-bad-time');
      if (tsig.fudge === 0) bad('tsig-bad-fudge');
      if (tsig.error === 'BADTIME' && tsig.otherLength !== 6) bad('tsig-bad-other-len');
      if ((tsig.error === 'NOERROR' || tsig.error === 'BADTIME') && (wrongKey || wrongAlgorithm || tsig.unverified)) bad('tsig-bad-sig');
    }
  }
  if (version !== undefined && version !== 0 && status !== 'BADVERS') bad(rcodeWord(status));
  if (edns) {
    if (edns.version !== 0) bad('version-not-zero');
    const asked = version ?? 0;
    if ((edns.version < asked && status !== 'BADVERS') || (edns.version >= asked && status === 'BADVERS')) bad('badversion');
  }
  if (!edns && version !== undefined) bad('noopt');
  if (edns && version === undefined) bad('opt');
  const apex = `${zone.replace(/\.$/, '').toLowerCase()}.`;
  const soa = reply.answer.some((rr) => rr.type === 'SOA' && rr.owner === apex);
  const rrsig = reply.answer.some((rr) => rr.type === 'RRSIG');
  if (qtype === 'SOA' && opcode === 0) {
    if ((version ?? 0) === 0 && !has('+ignore') && !soa && status === 'NOERROR') bad('nosoa');
    if (soa && ((version ?? 0) !== 0 || status !== 'NOERROR')) bad('soa');
  }
  if (edns?.options.has('OPT=100')) bad('echoed');
  const replyDo = edns?.flags.has('do') ?? false;
  if (edns && wantsDo && !replyDo && rrsig) bad('nodo');
  if (edns && wantsDo && has('+cd') && replyDo && !reply.flags.has('cd') && rrsig) bad('nocd');
  const flag = (name: string): boolean => reply.flags.has(name);
  if (!flag('aa') && (version ?? 0) === 0 && status === 'NOERROR' && opcode === 0) bad('noaa');
  if (flag('aa') && opcode !== 0) bad('aa');
  if (flag('ra') && opcode !== 0) bad('ra');
  if (flag('rd') && (opcode !== 0 || !has('+rec'))) bad('rd');
  if (!flag('rd') && has('+rec') && opcode === 0) bad('nord');
  if (flag('ad') && (opcode !== 0 || (!has('+ad') && !wantsDo))) bad('ad');
  if (flag('cd') && (opcode !== 0 || !has('+cd'))) bad('cd');
  if (reply.headerMbz) bad('z');
  if (edns?.mbz) bad('mbz');
  if (has('+ignore') && reply.size > Number(value('+bufsize=') ?? 512)) bad('toobig');
  if (ok) words.push('ok');
  const nsid = edns?.options.get('NSID');
  if (nsid !== undefined && nsid.trim() !== '') words.push('nsid');
  if (edns?.options.has('EXPIRE') && /^\d+/.test(edns.options.get('EXPIRE')!)) words.push('expire');
  if (serverCookie) {
    if (sentCookie === undefined) words.push('cookie');
    else words.push(`${cookieMatches ? 'cookie' : 'cookie-mismatch'}${status === 'BADCOOKIE' ? '+badcookie' : ''}`);
  }
  if (edns?.options.has('CLIENT-SUBNET')) words.push('subnet');
  return words.join(',');
}

export interface OracleServer {
  ns: string;
  address: string;
}

export interface OracleRecording {
  zone: string;
  /** dig's version line, as it ran. */
  dig: string;
  /** test → the dig command (with `<address>` for the server's address). */
  commands: Record<string, string>;
  /** 'ns/address' → test → result. */
  results: Record<string, Record<string, string>>;
}

// The dig command as genreport prints it, with the waits shortened so that a silent server costs 2 × 2 s.
const digTiming = ['+time=2', '+tries=2'];

async function runDig(lab: Lab, address: string, digArguments: string, zone: string): Promise<string> {
  const args = [`@${address}`, ...digArguments.replace('<zone>', zone).split(/\s+/), ...digTiming];
  const result = await lab.exec('dig', args, { timeoutMs: 30_000 });
  return result.stdout + result.stderr;
}

/** Runs every test's dig command at every address, a few at a time, and records the verdicts. */
export async function recordOracle(
  lab: Lab,
  zone: string,
  servers: OracleServer[],
  tests: readonly { name: string; dig: string }[],
): Promise<OracleRecording> {
  const version = (await lab.exec('dig', ['-v'], { timeoutMs: 10_000 })).stderr.trim();
  const results: Record<string, Record<string, string>> = {};
  const jobs = servers.flatMap((server) => tests.map((test) => ({ server, test })));
  const outcomes = new Map<string, string>();
  for (let i = 0; i < jobs.length; i += 8) {
    await Promise.all(
      jobs.slice(i, i + 8).map(async ({ server, test }) => {
        const text = await runDig(lab, server.address, test.dig, zone);
        outcomes.set(`${server.ns}/${server.address} ${test.name}`, text);
      }),
    );
  }
  for (const server of servers) {
    const key = `${server.ns}/${server.address}`;
    const row: Record<string, string> = {};
    for (const test of tests) {
      const reply = parseDig(outcomes.get(`${key} ${test.name}`)!);
      row[test.name] = oracleVerdict(test.dig, zone, reply);
      // genreport's `signed`: the `do` test's result, with `yes` when that answer carried an RRSIG.
      if (test.name === 'do') row.signed = `${row.do}${reply.answer.some((rr) => rr.type === 'RRSIG') ? ',yes' : ''}`;
    }
    results[key] = row;
  }
  const recording: OracleRecording = {
    zone,
    dig: version,
    commands: Object.fromEntries(tests.map((t) => [t.name, `dig @<address> ${t.dig.replace('<zone>', zone)} ${digTiming.join(' ')}`])),
    results,
  };
  mkdirSync(complianceRecordings, { recursive: true });
  writeFileSync(recordingPath(zone), `${JSON.stringify(recording, null, 2)}\n`);
  return recording;
}

const recordingPath = (zone: string): string => join(complianceRecordings, `${zone.replace(/\.$/, '')}.json`);

/** The recorded oracle for `zone`; recorded now when LAB_RECORD_COMPLIANCE says so (1: always, missing: when absent). */
export async function oracle(
  lab: Lab,
  zone: string,
  servers: OracleServer[],
  tests: readonly { name: string; dig: string }[],
): Promise<OracleRecording> {
  const path = recordingPath(zone);
  const mode = process.env.LAB_RECORD_COMPLIANCE;
  if (mode === '1' || (mode === 'missing' && !existsSync(path))) return recordOracle(lab, zone, servers, tests);
  if (!existsSync(path)) throw new Error(`no oracle recorded for ${zone}: run with LAB_RECORD_COMPLIANCE=missing`);
  return JSON.parse(readFileSync(path, 'utf8')) as OracleRecording;
}
