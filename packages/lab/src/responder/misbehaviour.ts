// What a misbehaving server does with one query: drop it, answer it itself (a fixed rcode, FORMERR
// to EDNS, an upward referral), or pass it to BIND and spoil the honest answer (no AA, TC on
// everything, no OPT). Built on @app/dns's codec so odd answers are exactly what we ask for.
import { decodeMessage, encodeMessage, Name, Rcode, RRClass, RRType, typeToString, type Message, type MessageInput, type RecordInput } from '@app/dns';
import type { Behaviour } from '../scenario/schema.ts';

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
export async function respond(queryBytes: Uint8Array, transport: Transport, behaviour: Behaviour, backend: Backend, roots: RootServer[]): Promise<Uint8Array[]> {
  let query: Message;
  try {
    query = decodeMessage(queryBytes);
  } catch {
    return [];
  }
  if (query.qr) return [];
  const question = query.question[0];
  if (question !== undefined && behaviour.drop.some((type) => type.toUpperCase() === typeToString(question.type))) return [];

  const edns = behaviour.edns;
  if (query.edns !== undefined) {
    if (edns === 'formerr') return [encodeMessage(replyHeader(query, { rcode: Rcode.FORMERR, edns: undefined }))];
    if (query.edns.version > 0 && edns === 'drop-unknown-version') return [];
  }
  // A server without EDNS never sees the OPT record; one without BADVERS treats any version as 0.
  const forwardedEdns = query.edns === undefined || edns === 'ignored' ? undefined : edns === 'no-badvers' ? { ...query.edns, version: 0 } : query.edns;
  const replyEdns = forwardedEdns === undefined ? undefined : { udpSize: 1232, do: forwardedEdns.do };

  if (behaviour.rcode !== undefined) return [encodeMessage(replyHeader(query, { rcode: Rcode[behaviour.rcode], edns: replyEdns }))];

  const forwarded = forwardedEdns === query.edns ? queryBytes : encodeMessage({ ...query, edns: forwardedEdns });
  const isTransfer = question?.type === RRType.AXFR || question?.type === RRType.IXFR;
  const answers = await backend.ask(forwarded, transport, isTransfer);
  return answers.map((bytes) => spoil(bytes, transport, behaviour, roots));
}

function replyHeader(query: Message, fields: { rcode: number; edns: MessageInput['edns'] }): MessageInput {
  return { id: query.id, qr: true, opcode: query.opcode, rd: query.rd, cd: query.cd, question: query.question, rcode: fields.rcode, edns: fields.edns };
}

function spoil(bytes: Uint8Array, transport: Transport, behaviour: Behaviour, roots: RootServer[]): Uint8Array {
  const truncate = behaviour.truncate && transport === 'udp';
  if (behaviour.aa && !behaviour.upwardReferral && !truncate) return bytes;
  const answer: MessageInput = decodeMessage(bytes);
  if (!behaviour.aa) answer.aa = false;
  // BIND refuses names outside its zones; this server points upwards instead.
  if (behaviour.upwardReferral && answer.rcode === Rcode.REFUSED) Object.assign(answer, upwardReferral(roots), { rcode: Rcode.NOERROR, aa: false });
  if (truncate) Object.assign(answer, { tc: true, answer: [], authority: [], additional: [] });
  return encodeMessage(answer);
}

/** "Ask the root": the referral an old or misconfigured server gives for names it does not serve. */
function upwardReferral(roots: RootServer[]): Pick<MessageInput, 'answer' | 'authority' | 'additional'> {
  const record = (name: string, type: number, rdata: RecordInput['rdata']): RecordInput => ({ name: Name.fromString(name), type, class: RRClass.IN, ttl: 518400, rdata });
  return {
    answer: [],
    authority: roots.map((r) => record('.', RRType.NS, { target: Name.fromString(r.name) })),
    additional: roots.flatMap((r) => r.addresses.map((a) => record(r.name, a.includes(':') ? RRType.AAAA : RRType.A, { address: a }))),
  };
}
