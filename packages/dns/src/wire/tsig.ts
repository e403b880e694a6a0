// TSIG (RFC 8945) with HMAC-SHA256: signing a request, and reading the TSIG record of a reply and
// checking its MAC. Enough for a client that signs one query and looks at what comes back.
import { createHmac } from 'node:crypto';
import { RRClass, RRType } from '../constants.ts';
import { Name } from '../name.ts';
import type { Message } from './message.ts';

export interface TsigKey {
  name: Name;
  /** Only HMAC-SHA256 is supported. */
  algorithm: 'hmac-sha256';
  secret: Uint8Array;
}

const algorithmName = Name.fromString('hmac-sha256.');
const u16 = (v: number): number[] => [(v >> 8) & 0xff, v & 0xff];
const u48 = (v: number): number[] => [...u16(Math.floor(v / 2 ** 32)), ...u16((v >>> 16) & 0xffff), ...u16(v & 0xffff)];

function hmac(key: TsigKey, parts: readonly Uint8Array[]): Uint8Array {
  const mac = createHmac('sha256', key.secret);
  for (const part of parts) mac.update(part);
  return new Uint8Array(mac.digest());
}

/** The request with a TSIG record added (ARCOUNT one more), and the MAC the reply's is computed over. */
export function signRequest(
  packet: Uint8Array,
  key: TsigKey,
  now = Math.floor(Date.now() / 1000),
  fudge = 300,
): { packet: Uint8Array; mac: Uint8Array } {
  const keyName = key.name.toLowerCase().wire;
  const algorithm = algorithmName.wire;
  const timers = Uint8Array.from([...u48(now), ...u16(fudge)]);
  // RFC 8945 §4.3.3: the message, then the key name, class ANY, TTL 0, algorithm, times, error 0 and no other data.
  const variables = Uint8Array.from([...keyName, ...u16(RRClass.ANY), 0, 0, 0, 0, ...algorithm, ...timers, 0, 0, 0, 0]);
  const mac = hmac(key, [packet, variables]);
  const rdata = Uint8Array.from([...algorithm, ...timers, ...u16(mac.length), ...mac, packet[0], packet[1], 0, 0, 0, 0]);
  const record = Uint8Array.from([...keyName, ...u16(RRType.TSIG), ...u16(RRClass.ANY), 0, 0, 0, 0, ...u16(rdata.length), ...rdata]);
  const signed = new Uint8Array(packet.length + record.length);
  signed.set(packet);
  signed.set(record, packet.length);
  const arcount = ((packet[10] << 8) | packet[11]) + 1;
  signed[10] = arcount >> 8;
  signed[11] = arcount & 0xff;
  return { packet: signed, mac };
}

/** What a reply's TSIG record says, and whether it is where and as RFC 8945 wants it. */
export interface TsigReading {
  error: number;
  keyName: Name;
  algorithm: Name;
  timeSigned: number;
  fudge: number;
  mac: Uint8Array;
  originalId: number;
  otherLength: number;
  isLast: boolean;
  classIsAny: boolean;
  ttlIsZero: boolean;
}

function readName(bytes: Uint8Array, at: number): { name: Name; next: number } {
  const labels: Uint8Array[] = [];
  let i = at;
  while (bytes[i] !== 0) {
    labels.push(bytes.subarray(i + 1, i + 1 + bytes[i]));
    i += 1 + bytes[i];
  }
  return { name: Name.fromLabels(labels), next: i + 1 };
}

export function readTsig(reply: Message): TsigReading | undefined {
  const index = reply.additional.findIndex((rr) => rr.type === RRType.TSIG);
  if (index < 0) return undefined;
  const record = reply.additional[index];
  const data = record.rdata instanceof Uint8Array ? record.rdata : undefined;
  if (!data) return undefined;
  const { name: algorithm, next } = readName(data, 0);
  const at = (offset: number): number => (data[next + offset] << 8) | data[next + offset + 1];
  const macSize = at(8);
  const macEnd = next + 10 + macSize;
  const rest = (offset: number): number => (data[macEnd + offset] << 8) | data[macEnd + offset + 1];
  return {
    error: rest(2),
    keyName: record.name,
    algorithm,
    timeSigned: at(0) * 2 ** 32 + at(2) * 2 ** 16 + at(4),
    fudge: at(6),
    mac: data.subarray(next + 10, macEnd),
    originalId: rest(0),
    otherLength: rest(4),
    isLast: index === reply.additional.length - 1,
    classIsAny: record.class === RRClass.ANY,
    ttlIsZero: record.ttl === 0,
  };
}

/**
 * Whether the reply's MAC is the one `key` makes over the request's MAC and the reply as it would be
 * without its TSIG record (RFC 8945 §4.3.2, §5.3): `bytes` is the reply as it came, TSIG record last.
 */
export function replyMacValid(bytes: Uint8Array, requestMac: Uint8Array, key: TsigKey, reading: TsigReading): boolean {
  // The TSIG record is the message's end: find its start by its known length.
  const keyName = reading.keyName.wire;
  const rdataLength = reading.algorithm.wire.length + 16 + reading.mac.length + reading.otherLength;
  const recordLength = keyName.length + 10 + rdataLength;
  const unsigned = Uint8Array.from(bytes.subarray(0, bytes.length - recordLength));
  const arcount = ((unsigned[10] << 8) | unsigned[11]) - 1;
  unsigned[10] = arcount >> 8;
  unsigned[11] = arcount & 0xff;
  unsigned[0] = reading.originalId >> 8;
  unsigned[1] = reading.originalId & 0xff;
  const record = bytes.subarray(bytes.length - recordLength);
  const otherData = record.subarray(record.length - reading.otherLength);
  const variables = Uint8Array.from([
    ...reading.keyName.toLowerCase().wire,
    ...u16(RRClass.ANY),
    0,
    0,
    0,
    0,
    ...reading.algorithm.toLowerCase().wire,
    ...u48(reading.timeSigned),
    ...u16(reading.fudge),
    ...u16(reading.error),
    ...u16(reading.otherLength),
    ...otherData,
  ]);
  const expected = hmac(key, [Uint8Array.from([...u16(requestMac.length), ...requestMac]), unsigned, variables]);
  return expected.length === reading.mac.length && expected.every((byte, i) => byte === reading.mac[i]);
}
