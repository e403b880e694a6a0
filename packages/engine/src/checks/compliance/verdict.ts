// A protocol compliance test's result, in genreport's words: what is wrong with the reply, comma
// separated, or `ok`, followed by the options it noticed (nsid, expire, cookie, subnet). Rules from
// RFC 1035 (header bits), RFC 6891 (EDNS versions, flags, options) and RFC 7873 (cookies).
import { Name, Opcode, Rcode, readTsig, replyMacValid, RRType, type Message } from '@app/dns';
import type { SendOutcome } from '../../net/nameserver-client.ts';
import { OptionCode, sendsCookie, testClientCookie, wellKnownKey, type ProtocolTest } from './protocol-tests.ts';

const BADCOOKIE = 23;

const opcodeWords: Record<number, string> = {
  [Opcode.QUERY]: 'query',
  1: 'iquery',
  [Opcode.STATUS]: 'status',
  [Opcode.NOTIFY]: 'notify',
  [Opcode.UPDATE]: 'update',
};
const rcodeWords: Record<number, string> = {
  0: 'noerror',
  1: 'formerr',
  2: 'servfail',
  3: 'nxdomain',
  4: 'notimp',
  5: 'refused',
  6: 'yxdomain',
  7: 'yxrrset',
  8: 'nxrrset',
  9: 'notauth',
  10: 'notzone',
  16: 'badvers',
  23: 'badcookie',
};
const opcodeWord = (code: number): string => opcodeWords[code] ?? `opcode${code}`;
const rcodeWord = (code: number): string => rcodeWords[code] ?? `rcode${code}`;

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * Options whose length their specification rules out make the reply unusable, as dig and resolvers
 * built on BIND's parser treat it: a COOKIE of other than 8 or 16 to 40 bytes (RFC 7873 §4), an
 * EXPIRE of other than 0 or 4 (RFC 7314 §2).
 */
function malformedOptions(reply: Message): boolean {
  return (reply.edns?.options ?? []).some(
    (o) =>
      (o.code === OptionCode.COOKIE && o.data.length !== 8 && (o.data.length < 16 || o.data.length > 40)) ||
      (o.code === OptionCode.EXPIRE && o.data.length !== 0 && o.data.length !== 4),
  );
}

/** The words for one test's outcome; the first is `ok` when the reply is as the RFCs want it. */
export function verdictWords(test: ProtocolTest, outcome: SendOutcome): string[] {
  const reply = outcome.message;
  if (!reply) return [outcome.failure ?? 'timeout'];
  if (malformedOptions(reply)) return ['malformed'];
  const problems: string[] = [];
  let ok = true;
  const fail = (word: string): void => {
    problems.push(word);
    ok = false;
  };
  const asked = {
    opcode: test.opcode ?? 0,
    version: test.edns?.version ?? 0,
    rd: test.rd ?? false,
    ad: test.ad ?? false,
    cd: test.cd ?? false,
    do: test.edns?.do ?? false,
  };
  const unknownOpcode = asked.opcode !== 0;
  const rcode = reply.rcode;
  // A reply to an unknown opcode is read no further than its header and section counts.
  const edns = unknownOpcode ? undefined : reply.edns;
  const options = edns?.options ?? [];
  const zoneApex = reply.question[0]?.name;
  const seenSoa =
    !unknownOpcode && reply.answer.some((rr) => rr.type === RRType.SOA && (zoneApex === undefined || rr.name.equals(zoneApex)));
  const seenRrsig = reply.answer.some((rr) => rr.type === RRType.RRSIG);

  // A request without a question gets a reply without records.
  if (unknownOpcode) {
    if (reply.question.length > 0) fail('non-empty-question-section');
    if (reply.answer.length > 0) fail('non-empty-answer-section');
    if (reply.authority.length > 0) fail('non-empty-authority-section');
    if (reply.additional.length > 0 || reply.edns !== undefined) fail('non-empty-additional-section');
  }

  // Server cookies: 8 to 32 bytes after the 8 of the client's (RFC 7873 §4.2).
  const cookie = options.find((o) => o.code === OptionCode.COOKIE && o.data.length >= 16 && o.data.length <= 40);
  const cookieEchoed = cookie !== undefined && sameBytes(cookie.data.subarray(0, 8), testClientCookie);
  if (cookie && !cookieEchoed && sendsCookie(test)) ok = false;

  if (reply.opcode !== asked.opcode) fail(opcodeWord(reply.opcode));
  let rcodeSaid = false;
  if (asked.version === 0) {
    const cookieRefusal = sendsCookie(test) && rcode === BADCOOKIE && cookie !== undefined;
    if (!unknownOpcode && rcode !== Rcode.NOERROR && !cookieRefusal) {
      fail(rcodeWord(rcode));
      rcodeSaid = true;
    }
    if (unknownOpcode && rcode !== Rcode.NOTIMP) {
      fail(rcodeWord(rcode));
      rcodeSaid = true;
    }
  }
  tsigWords(test, outcome, rcodeSaid).forEach(fail);
  if (asked.version !== 0 && rcode !== Rcode.BADVERS) fail(rcodeWord(rcode));

  if (edns) {
    if (edns.version !== 0) fail('version-not-zero');
    const badvers = rcode === Rcode.BADVERS;
    if ((edns.version < asked.version && !badvers) || (edns.version >= asked.version && badvers)) fail('badversion');
  }
  if (!edns && test.edns) fail('noopt');
  if (edns && !test.edns) fail('opt');
  if (test.qtype === RRType.SOA && !unknownOpcode) {
    if (asked.version === 0 && !test.ignoreTc && !seenSoa && rcode === Rcode.NOERROR) fail('nosoa');
    if (seenSoa && (asked.version !== 0 || rcode !== Rcode.NOERROR)) fail('soa');
  }
  if (options.some((o) => o.code === OptionCode.UNDEFINED)) fail('echoed');
  if (edns && asked.do && !edns.do && seenRrsig) fail('nodo');
  if (edns && asked.do && asked.cd && edns.do && !reply.cd && seenRrsig) fail('nocd');

  if (!reply.aa && asked.version === 0 && rcode === Rcode.NOERROR && !unknownOpcode) fail('noaa');
  if (reply.aa && unknownOpcode) fail('aa');
  if (reply.ra && unknownOpcode) fail('ra');
  if (reply.rd && (unknownOpcode || !asked.rd)) fail('rd');
  if (!reply.rd && asked.rd && !unknownOpcode) fail('nord');
  if (reply.ad && (unknownOpcode || (!asked.ad && !asked.do))) fail('ad');
  if (reply.cd && (unknownOpcode || !asked.cd)) fail('cd');
  // The last reserved header bit is not to be copied into a reply (RFC 1035 §4.1.1).
  if (reply.z) fail('z');
  // Only DO is defined among the EDNS flags; the others are zero in a reply (RFC 6891 §6.1.4).
  if (edns && (edns.flags & 0x7fff) !== 0) fail('mbz');
  if (test.ignoreTc && outcome.size !== undefined && outcome.size > (test.edns?.udpSize || 512)) fail('toobig');

  const words = ok ? [...problems, 'ok'] : problems;
  if (options.some((o) => o.code === OptionCode.NSID && o.data.length > 0)) words.push('nsid');
  if (options.some((o) => o.code === OptionCode.EXPIRE && o.data.length === 4)) words.push('expire');
  if (cookie && sendsCookie(test)) {
    const base = cookieEchoed ? 'cookie' : 'cookie-mismatch';
    words.push(rcode === BADCOOKIE ? `${base}+badcookie` : base);
  } else if (cookie) {
    words.push('cookie');
  }
  if (options.some((o) => o.code === OptionCode.ECS)) words.push('subnet');
  return words;
}

const tsigErrorWords: Record<number, string> = { 16: 'badsig', 17: 'badkey', 18: 'badtime' };
const fudgeSeconds = (now: number, time: number, fudge: number): boolean => time > now + fudge || time < now - fudge;

/**
 * A signed request's reply (RFC 8945): signed in turn, its TSIG record last, class ANY, TTL 0, with our
 * key and algorithm, in time, with a MAC that checks out (unless it reports an error).
 */
function tsigWords(test: ProtocolTest, outcome: SendOutcome, rcodeSaid: boolean): string[] {
  const reply = outcome.message!;
  const tsig = readTsig(reply);
  const words: string[] = [];
  if (tsig && tsig.error !== 0) {
    if (!rcodeSaid && reply.rcode !== Rcode.NOTAUTH) words.push(rcodeWord(reply.rcode));
    words.push(tsigErrorWords[tsig.error] ?? `rcode${tsig.error}`);
  }
  if (!test.tsig) return words;
  if (!tsig) return [...words, 'notsig'];
  const wrongKey = !tsig.keyName.equals(wellKnownKey.name);
  const wrongAlgorithm = !tsig.algorithm.equals(Name.fromString('hmac-sha256.'));
  if (!tsig.isLast) words.push('tsig-not-last');
  if (!tsig.classIsAny) words.push('tsig-bad-class');
  if (!tsig.ttlIsZero) words.push('tsig-bad-ttl');
  if (wrongKey) words.push('tsig-wrong-key');
  if (wrongAlgorithm) words.push('tsig-wrong-alg');
  if (fudgeSeconds(Math.floor(Date.now() / 1000), tsig.timeSigned, tsig.fudge)) words.push('tsig-bad-time');
  if (tsig.fudge === 0) words.push('tsig-bad-fudge');
  if (tsig.error === 18 && tsig.otherLength !== 6) words.push('tsig-bad-other-len');
  const checksOut =
    outcome.bytes !== undefined && outcome.requestMac !== undefined && replyMacValid(outcome.bytes, outcome.requestMac, wellKnownKey, tsig);
  if ((tsig.error === 0 || tsig.error === 18) && (wrongKey || wrongAlgorithm || !checksOut)) words.push('tsig-bad-sig');
  return words;
}

/** A result passes when it begins with `ok`. */
export const passes = (result: string): boolean => result === 'ok' || result.startsWith('ok,');

export const verdict = (test: ProtocolTest, outcome: SendOutcome): string => verdictWords(test, outcome).join(',');

/** Whether the reply carried an RRSIG in its answer (the `do` test's, for `signed`). */
export const carriesRrsig = (message: Message | undefined): boolean => message?.answer.some((rr) => rr.type === RRType.RRSIG) ?? false;
