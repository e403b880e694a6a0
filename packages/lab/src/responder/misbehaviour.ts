// What a misbehaving server does with one query: drop it, answer it itself (a fixed rcode, FORMERR
// to EDNS, an upward referral), or pass it to BIND and spoil the honest answer (no AA, TC on
// everything, no OPT). Built on @app/dns's codec so odd answers are exactly what we ask for.
import {
  decodeMessage,
  encodeMessage,
  Name,
  Rcode,
  RRClass,
  RRType,
  recordIs,
  typeToString,
  type Message,
  type MessageInput,
  type RecordInput,
} from '@app/dns';
import type { Behaviour, knownOptionNames as scenarioOptionNames } from '../scenario/scenario-format.ts';

export type Transport = 'udp' | 'tcp';

export interface Backend {
  /** The honest answer(s) from BIND; empty when it did not answer. */
  ask(query: Uint8Array, transport: Transport, isTransfer: boolean): Promise<Uint8Array[]>;
}

export interface RootServer {
  name: string;
  addresses: string[];
}

/** The answers to send back (several for a zone transfer over TCP); empty means stay silent. */
export async function respond(
  queryBytes: Uint8Array,
  transport: Transport,
  behaviour: Behaviour,
  backend: Backend,
  roots: RootServer[],
): Promise<Uint8Array[]> {
  let query: Message;
  try {
    query = decodeMessage(queryBytes);
  } catch {
    return [];
  }
  if (query.qr) return [];
  const question = query.question[0];
  const isType = (type: string): boolean => question !== undefined && type === typeToString(question.type);
  if (behaviour.drop.some(isType) && (behaviour.dropOver === 'both' || behaviour.dropOver === transport)) return [];
  const isTransfer = question?.type === RRType.AXFR || question?.type === RRType.IXFR;
  if (behaviour.versionAnswer === 'wrong-class' && question !== undefined && isVersionQuery(question))
    return [encodeMessage(wrongClassVersion(query, behaviour.version ?? 'lab'))];
  // A server that misbehaves for some query types only answers the others as BIND does.
  if (behaviour.onlyTypes.length > 0 && !behaviour.onlyTypes.some(isType) && !behaviour.empty.some(isType))
    return backend.ask(queryBytes, transport, isTransfer);

  // Header bits a middlebox refuses, and opcodes other than QUERY.
  if (behaviour.flagsRefused.some((bit) => query[bit]))
    return [encodeMessage(replyHeader(query, { rcode: Rcode.FORMERR, edns: undefined }))];
  if (query.opcode !== 0 && behaviour.unknownOpcode === 'drop') return [];
  if (query.opcode !== 0 && behaviour.unknownOpcode === 'noerror')
    return [encodeMessage({ ...replyHeader(query, { rcode: Rcode.NOERROR, edns: undefined }), question: [] })];
  const optionBehaviours = (query.edns?.options ?? []).flatMap((o) => {
    const name = knownOptionNames[o.code];
    const mishandled = name === undefined ? undefined : behaviour.knownOptions[name];
    return mishandled === undefined ? [] : [mishandled];
  });
  if (optionBehaviours.includes('drop')) return [];
  if (optionBehaviours.includes('formerr')) return [encodeMessage(replyHeader(query, { rcode: Rcode.FORMERR, edns: { udpSize: 1232 } }))];
  // A server whose server cookie is never good enough.
  if (behaviour.cookie === 'badcookie' && (query.edns?.options ?? []).some((o) => o.code === cookieCode && o.data.length > 8)) {
    const cookie = query.edns!.options.find((o) => o.code === cookieCode)!;
    return [
      encodeMessage(
        replyHeader(query, {
          rcode: 23,
          edns: {
            udpSize: 1232,
            options: [{ code: cookieCode, data: Uint8Array.from([...cookie.data.subarray(0, 8), 9, 9, 9, 9, 9, 9, 9, 9]) }],
          },
        }),
      ),
    ];
  }

  const edns = behaviour.edns;
  if (query.edns !== undefined) {
    if (edns === 'formerr') return [encodeMessage(replyHeader(query, { rcode: Rcode.FORMERR, edns: undefined }))];
    if (query.edns.version > 0 && edns === 'drop-unknown-version') return [];
    if (query.edns.version > 0 && edns === 'formerr-unknown-version')
      return [encodeMessage(replyHeader(query, { rcode: Rcode.FORMERR, edns: undefined }))];
    if (hasUnknownOption(query) && behaviour.unknownOption === 'formerr')
      return [encodeMessage(replyHeader(query, { rcode: Rcode.FORMERR, edns: { udpSize: 1232 } }))];
  }
  // A server without EDNS never sees the OPT record; one without BADVERS treats any version as 0.
  const kept =
    query.edns === undefined || edns === 'ignored' ? undefined : edns === 'no-badvers' ? { ...query.edns, version: 0 } : query.edns;
  // A server that ignores the buffer size asks BIND for everything and sends it whole.
  const forwardedEdns = kept !== undefined && behaviour.udpSize === 'ignored' && transport === 'udp' ? { ...kept, udpSize: 65535 } : kept;
  const replyEdns = forwardedEdns === undefined ? undefined : { udpSize: 1232, do: forwardedEdns.do };

  if (behaviour.rcode !== undefined) return [encodeMessage(replyHeader(query, { rcode: Rcode[behaviour.rcode], edns: replyEdns }))];
  if (behaviour.empty.some(isType)) {
    return [encodeMessage({ ...replyHeader(query, { rcode: Rcode.NOERROR, edns: replyEdns }), aa: true })];
  }

  // A server that answers every question as if it had asked for another name (its question kept).
  const renamed = behaviour.answerName !== undefined && question !== undefined;
  const forwarded =
    forwardedEdns === query.edns && !renamed
      ? queryBytes
      : encodeMessage({
          ...query,
          edns: forwardedEdns,
          ...(renamed && { question: [{ ...question, name: Name.fromString(behaviour.answerName!) }] }),
        });
  const answers = await backend.ask(forwarded, transport, isTransfer);
  return answers.map((bytes) => spoil(bytes, query, transport, behaviour, roots, optionBehaviours.includes('no-edns')));
}

const versionNames = new Set(['version.bind.', 'version.server.']);

function isVersionQuery(question: Message['question'][number]): boolean {
  return question.class === RRClass.CH && question.type === RRType.TXT && versionNames.has(question.name.toLowerCase().toString());
}

/** A software version answered in the wrong class: the TXT record is IN, though CH was asked. */
function wrongClassVersion(query: Message, version: string): MessageInput {
  const txt: RecordInput = {
    name: query.question[0].name,
    type: RRType.TXT,
    class: RRClass.IN,
    ttl: 0,
    rdata: { strings: [new TextEncoder().encode(version)] },
  };
  return { ...replyHeader(query, { rcode: Rcode.NOERROR, edns: query.edns && { udpSize: 1232 } }), aa: true, answer: [txt] };
}

/** EDNS option codes IANA has assigned (RFC 6891 registry, up to EDE); others are unknown to a server. */
const knownOptionCodes = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 65001]);
/** The assigned options a scenario can have mishandled, by code. */
const knownOptionNames: Partial<Record<number, (typeof scenarioOptionNames)[number]>> = { 3: 'NSID', 8: 'ECS', 9: 'EXPIRE', 10: 'COOKIE' };
const cookieCode = 10;

function hasUnknownOption(query: Message): boolean {
  return query.edns?.options.some((o) => !knownOptionCodes.has(o.code)) ?? false;
}

function replyHeader(query: Message, fields: { rcode: number; edns: MessageInput['edns'] }): MessageInput {
  return {
    id: query.id,
    qr: true,
    opcode: query.opcode,
    rd: query.rd,
    cd: query.cd,
    question: query.question,
    rcode: fields.rcode,
    edns: fields.edns,
  };
}

function spoil(
  bytes: Uint8Array,
  query: Message,
  transport: Transport,
  behaviour: Behaviour,
  roots: RootServer[],
  optionNoEdns = false,
): Uint8Array {
  const truncate = behaviour.truncate === 'always' || (behaviour.truncate && transport === 'udp');
  const unknownOption = hasUnknownOption(query) ? behaviour.unknownOption : 'ignored';
  const echoOptions = unknownOption === 'echo';
  const wrongVersion = behaviour.edns === 'answers-version-1';
  const renamed = behaviour.answerName !== undefined;
  const echoZ = behaviour.ednsZ === 'echoed' && (query.edns?.flags ?? 0) & 0x7fff;
  const lowerQname = behaviour.qnameCase === 'lower';
  const stripping = behaviour.stripRrsigs.length > 0 || behaviour.stripRecords.length > 0;
  const header =
    behaviour.headerEcho.length > 0 ||
    behaviour.rd !== 'kept' ||
    behaviour.clearFlags.length > 0 ||
    behaviour.cookie !== 'server' ||
    optionNoEdns;
  const plain =
    behaviour.aa &&
    !behaviour.upwardReferral &&
    !truncate &&
    unknownOption === 'ignored' &&
    !echoZ &&
    !lowerQname &&
    !behaviour.extraSoa &&
    !stripping &&
    !header;
  if (plain && !wrongVersion && !renamed) return bytes;
  const decoded = stripping ? stripped(decodeMessage(bytes), behaviour) : decodeMessage(bytes);
  // Two SOA records in one answer: the second one a serial ahead.
  const soa = behaviour.extraSoa ? decoded.answer.find((rr) => recordIs(rr, RRType.SOA)) : undefined;
  const answer: MessageInput =
    soa && recordIs(soa, RRType.SOA)
      ? { ...decoded, answer: [...decoded.answer, { ...soa, rdata: { ...soa.rdata, serial: (soa.rdata.serial + 1) >>> 0 } }] }
      : decoded;
  // A server that copies what it does not understand back into its answer.
  if (answer.edns && query.edns && echoOptions)
    answer.edns.options = [...(answer.edns.options ?? []), ...query.edns.options.filter((o) => !knownOptionCodes.has(o.code))];
  if (answer.edns && query.edns && echoZ) answer.edns.flags = (answer.edns.flags ?? 0) | (query.edns.flags & 0x7fff);
  if (renamed) answer.question = query.question;
  if (lowerQname) answer.question = answer.question?.map((q) => ({ ...q, name: q.name.toLowerCase() }));
  if (answer.edns && wrongVersion) answer.edns.version = 1;
  // Servers (or middleboxes) that mishandle a query with an option they do not know.
  if (unknownOption === 'no-edns' || optionNoEdns) answer.edns = undefined;
  for (const bit of behaviour.headerEcho) if (query[bit]) answer[bit] = true;
  if (behaviour.rd !== 'kept') answer.rd = behaviour.rd === 'set';
  if (behaviour.clearFlags.includes('cd')) answer.cd = false;
  if (answer.edns && behaviour.clearFlags.includes('do')) answer.edns.do = false;
  if (answer.edns && behaviour.cookie !== 'server') answer.edns.options = spoiltCookie(answer.edns.options ?? [], query, behaviour.cookie);
  if (unknownOption === 'empty') answer.answer = [];
  if (!behaviour.aa || unknownOption === 'no-aa') answer.aa = false;
  // BIND refuses names outside its zones; this server points upwards instead.
  if (behaviour.upwardReferral && answer.rcode === Rcode.REFUSED)
    Object.assign(answer, upwardReferral(roots), { rcode: Rcode.NOERROR, aa: false });
  if (truncate) Object.assign(answer, { tc: true, answer: [], authority: [], additional: [] });
  return encodeMessage(answer);
}

/** A server that leaves out records of some types (and their RRSIGs), or only the RRSIGs over some types, in every section. */
function stripped(message: Message, behaviour: Behaviour): Message {
  const records = new Set(behaviour.stripRecords);
  const signatures = new Set([...records, ...behaviour.stripRrsigs]);
  const keep = (rr: Message['answer'][number]): boolean =>
    !records.has(typeToString(rr.type)) && !(recordIs(rr, RRType.RRSIG) && signatures.has(typeToString(rr.rdata.typeCovered)));
  return {
    ...message,
    answer: message.answer.filter(keep),
    authority: message.authority.filter(keep),
    additional: message.additional.filter(keep),
  };
}

/** "Ask the root": the referral an old or misconfigured server gives for names it does not serve. */
function upwardReferral(roots: RootServer[]): Pick<MessageInput, 'answer' | 'authority' | 'additional'> {
  const record = (name: string, type: number, rdata: RecordInput['rdata']): RecordInput => ({
    name: Name.fromString(name),
    type,
    class: RRClass.IN,
    ttl: 518400,
    rdata,
  });
  return {
    answer: [],
    authority: roots.map((r) => record('.', RRType.NS, { target: Name.fromString(r.name) })),
    additional: roots.flatMap((r) => r.addresses.map((a) => record(r.name, a.includes(':') ? RRType.AAAA : RRType.A, { address: a }))),
  };
}

/** The answer's COOKIE option as a misbehaving server makes it (RFC 7873 §4.2 says how it should be). */
function spoiltCookie(
  options: readonly { code: number; data: Uint8Array }[],
  query: Message,
  mode: Behaviour['cookie'],
): { code: number; data: Uint8Array }[] {
  const asked = query.edns?.options.find((o) => o.code === cookieCode);
  if (asked === undefined) return [...options];
  return options.map((o) => {
    if (o.code !== cookieCode) return o;
    if (mode === 'wrong-client')
      return { code: o.code, data: Uint8Array.from([...o.data.subarray(0, 8).map((b) => b ^ 0xff), ...o.data.subarray(8)]) };
    if (mode === 'short') return { code: o.code, data: Uint8Array.from([...o.data.subarray(0, 8), 1, 2, 3, 4]) };
    if (mode === 'stale' && asked.data.length > 8) return { code: o.code, data: asked.data };
    return o;
  });
}
