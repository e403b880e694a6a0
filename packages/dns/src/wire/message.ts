// The DNS message (RFC 1035 §4.1) with EDNS (RFC 6891) lifted out of the additional section.
import { RRType } from '../constants.ts';
import { Name } from '../name.ts';
import { DnsDecodeError, DnsEncodeError } from './errors.ts';
import { Reader } from './reader.ts';
import type { EdnsOptionData, OptData } from './rdata/opt-record.ts';
import { decodeRdata, encodeRdata, type KnownType, type Rdata, type RdataByType } from './rdata/registry.ts';
import { Writer } from './writer.ts';

export interface Question {
  name: Name;
  type: number;
  class: number;
}

export interface ResourceRecord<D extends Rdata = Rdata> {
  name: Name;
  type: number;
  class: number;
  ttl: number;
  rdata: D;
  /** The rdata bytes as received (a view into the packet; names may hold compression pointers). */
  raw: Uint8Array;
}

/** A record to encode; `raw` is not needed (and ignored) since rdata is written from `rdata`. */
export type RecordInput = Omit<ResourceRecord, 'raw'> & { raw?: Uint8Array };

export interface Edns {
  version: number;
  udpSize: number;
  /** The DO bit (RFC 3225), also bit 15 of `flags`. */
  do: boolean;
  /** The whole 16-bit flags field as on the wire. */
  flags: number;
  options: EdnsOptionData[];
}

export interface EdnsInput {
  version?: number;
  udpSize?: number;
  do?: boolean;
  /** Extra flag bits; DO is taken from `do`. */
  flags?: number;
  options?: EdnsOptionData[];
}

export interface Message {
  id: number;
  qr: boolean;
  opcode: number;
  aa: boolean;
  tc: boolean;
  rd: boolean;
  ra: boolean;
  /** The reserved header bit, kept so odd packets survive a round trip. */
  z: boolean;
  ad: boolean;
  cd: boolean;
  /** The full rcode: header bits plus the EDNS extended bits shifted left by 4. */
  rcode: number;
  question: Question[];
  answer: ResourceRecord[];
  authority: ResourceRecord[];
  /** Without the OPT record that became `edns` (any further OPT records stay here). */
  additional: ResourceRecord[];
  edns?: Edns;
}

/** What encodeMessage accepts: every header field optional (zero / false), any records. */
export interface MessageInput {
  id?: number;
  qr?: boolean;
  opcode?: number;
  aa?: boolean;
  tc?: boolean;
  rd?: boolean;
  ra?: boolean;
  z?: boolean;
  ad?: boolean;
  cd?: boolean;
  rcode?: number;
  question?: Question[];
  answer?: RecordInput[];
  authority?: RecordInput[];
  additional?: RecordInput[];
  edns?: EdnsInput;
}

const HEADER_LENGTH = 12;

/** Narrows a record to a known type's structured rdata. */
export function recordIs<T extends KnownType>(rr: ResourceRecord, type: T): rr is ResourceRecord<RdataByType[T]> {
  return rr.type === type && !(rr.rdata instanceof Uint8Array);
}

export function decodeMessage(bytes: Uint8Array): Message {
  if (bytes.length < HEADER_LENGTH) throw new DnsDecodeError('message shorter than its header', 0);
  const r = new Reader(bytes);
  const id = r.u16();
  const flags = r.u16();
  const qdcount = r.u16();
  const ancount = r.u16();
  const nscount = r.u16();
  const arcount = r.u16();
  const question: Question[] = [];
  for (let i = 0; i < qdcount; i++) question.push({ name: r.name(), type: r.u16('question'), class: r.u16('question') });
  const answer = readRecords(r, ancount);
  const authority = readRecords(r, nscount);
  const additional = readRecords(r, arcount);
  const message: Message = {
    id,
    qr: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    rd: (flags & 0x0100) !== 0,
    ra: (flags & 0x0080) !== 0,
    z: (flags & 0x0040) !== 0,
    ad: (flags & 0x0020) !== 0,
    cd: (flags & 0x0010) !== 0,
    rcode: flags & 0xf,
    question,
    answer,
    authority,
    additional,
  };
  const optIndex = additional.findIndex((rr) => rr.type === RRType.OPT);
  if (optIndex >= 0) {
    const opt = additional[optIndex];
    additional.splice(optIndex, 1);
    const ednsFlags = opt.ttl & 0xffff;
    message.rcode |= (opt.ttl >>> 24) << 4;
    message.edns = {
      version: (opt.ttl >>> 16) & 0xff,
      udpSize: opt.class,
      do: (ednsFlags & 0x8000) !== 0,
      flags: ednsFlags,
      options: (opt.rdata as OptData).options,
    };
  }
  return message;
}

function readRecords(r: Reader, count: number): ResourceRecord[] {
  const records: ResourceRecord[] = [];
  for (let i = 0; i < count; i++) {
    if (r.remaining === 0) throw new DnsDecodeError(`record count says ${count} but only ${i} records are present`, r.offset);
    const name = r.name();
    const type = r.u16('record header');
    const cls = r.u16('record header');
    const ttl = r.u32('record header');
    const length = r.u16('record header');
    const start = r.offset;
    r.need(length, 'rdata');
    const rdata = decodeRdata(r, type, start + length);
    records.push({ name, type, class: cls, ttl, rdata, raw: r.bytes.subarray(start, start + length) });
  }
  return records;
}

function u16(v: number, what: string): number {
  if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new DnsEncodeError(`${what} ${v} is not a 16-bit value`);
  return v;
}

// Encoding is synchronous, so one writer (and its grown buffer) serves every message.
const shared = new Writer(4096);

export function encodeMessage(msg: MessageInput): Uint8Array {
  const w = shared;
  w.reset();
  const question = msg.question ?? [];
  const answer = msg.answer ?? [];
  const authority = msg.authority ?? [];
  const additional = msg.additional ?? [];
  const rcode = msg.rcode ?? 0;
  w.u16(u16(msg.id ?? 0, 'id'));
  w.u16(
    (msg.qr ? 0x8000 : 0) |
      (((msg.opcode ?? 0) & 0xf) << 11) |
      (msg.aa ? 0x0400 : 0) |
      (msg.tc ? 0x0200 : 0) |
      (msg.rd ? 0x0100 : 0) |
      (msg.ra ? 0x0080 : 0) |
      (msg.z ? 0x0040 : 0) |
      (msg.ad ? 0x0020 : 0) |
      (msg.cd ? 0x0010 : 0) |
      (rcode & 0xf),
  );
  w.u16(u16(question.length, 'question count'));
  w.u16(u16(answer.length, 'answer count'));
  w.u16(u16(authority.length, 'authority count'));
  w.u16(u16(additional.length + (msg.edns ? 1 : 0), 'additional count'));
  for (const q of question) {
    w.name(q.name, true);
    w.u16(u16(q.type, 'type'));
    w.u16(u16(q.class, 'class'));
  }
  for (const rr of answer) writeRecord(w, rr);
  for (const rr of authority) writeRecord(w, rr);
  for (const rr of additional) writeRecord(w, rr);
  if (msg.edns) writeRecord(w, optRecord(msg.edns, rcode));
  return w.finish();
}

function optRecord(edns: EdnsInput, rcode: number): RecordInput {
  const flags = ((edns.flags ?? 0) & 0x7fff) | (edns.do ? 0x8000 : 0);
  return {
    name: Name.root,
    type: RRType.OPT,
    class: edns.udpSize ?? 1232,
    ttl: (((rcode >> 4) & 0xff) << 24) | ((edns.version ?? 0) << 16) | flags,
    rdata: { options: edns.options ?? [] },
  };
}

function writeRecord(w: Writer, rr: RecordInput): void {
  w.name(rr.name, true);
  w.u16(u16(rr.type, 'type'));
  w.u16(u16(rr.class, 'class'));
  w.u32(rr.ttl >>> 0);
  const lengthAt = w.length;
  w.u16(0);
  encodeRdata(w, rr.type, rr.rdata, 'message');
  w.setU16(lengthAt, u16(w.length - lengthAt - 2, 'rdata length'));
}

/** Rdata alone, uncompressed, optionally in canonical form (for DNSSEC and comparisons). */
export function encodeRdataBytes(type: number, rdata: Rdata, canonical = false): Uint8Array {
  const w = new Writer(64);
  encodeRdata(w, type, rdata, canonical ? 'canonical' : 'uncompressed');
  return w.finish();
}
