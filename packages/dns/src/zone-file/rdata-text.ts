// Presentation rdata of each known type into structured rdata; `\#` generic rdata for any type.
import { isIPv4, isIPv6 } from 'node:net';
import { RRType } from '../constants.ts';
import { Reader } from '../wire/reader.ts';
import { DnsDecodeError } from '../wire/errors.ts';
import { decodeRdata, type Rdata } from '../wire/rdata/registry.ts';
import type { Fields } from './presentation.ts';
import { Writer } from '../wire/writer.ts';

type Parser = (f: Fields) => Rdata;

const target: Parser = (f) => ({ target: f.name('target name') });
const txt: Parser = (f) => {
  const strings = [f.characterString('text')];
  while (!f.done) strings.push(f.characterString('text'));
  return { strings };
};
const ds: Parser = (f) => ({
  keyTag: f.u16('key tag'),
  algorithm: f.algorithm(),
  digestType: f.u8('digest type'),
  digest: f.hexRest('digest'),
});
const dnskey: Parser = (f) => ({
  flags: f.u16('flags'),
  protocol: f.u8('protocol'),
  algorithm: f.algorithm(),
  publicKey: f.base64Rest('public key'),
});
const salt = (f: Fields) => {
  const t = f.next('salt').text;
  return t === '-' ? new Uint8Array(0) : f.hex(t, 'salt');
};

const parsers = new Map<number, Parser>([
  [
    RRType.A,
    (f) => {
      const address = f.next('IPv4 address').text;
      if (!isIPv4(address)) throw f.error(`"${address}" is not an IPv4 address`);
      return { address };
    },
  ],
  [
    RRType.AAAA,
    (f) => {
      const address = f.next('IPv6 address').text;
      if (!isIPv6(address)) throw f.error(`"${address}" is not an IPv6 address`);
      return { address: address.toLowerCase() };
    },
  ],
  [RRType.NS, target],
  [RRType.CNAME, target],
  [RRType.DNAME, target],
  [RRType.PTR, target],
  [
    RRType.SOA,
    (f) => ({
      mname: f.name('primary name server'),
      rname: f.name('responsible mailbox'),
      serial: f.u32('serial'),
      refresh: f.duration('refresh'),
      retry: f.duration('retry'),
      expire: f.duration('expire'),
      minimum: f.duration('minimum'),
    }),
  ],
  [RRType.MX, (f) => ({ preference: f.u16('preference'), exchange: f.name('exchange') })],
  [RRType.TXT, txt],
  [RRType.SPF, txt],
  [RRType.SRV, (f) => ({ priority: f.u16('priority'), weight: f.u16('weight'), port: f.u16('port'), target: f.name('target') })],
  [
    RRType.CAA,
    (f) => {
      const flags = f.u8('flags');
      const tag = f.next('tag').text;
      if (!/^[A-Za-z0-9]+$/.test(tag)) throw f.error(`CAA tag "${tag}" must be letters and digits`);
      return { flags, tag, value: f.characterString('value') };
    },
  ],
  [RRType.HINFO, (f) => ({ cpu: f.characterString('CPU'), os: f.characterString('OS') })],
  [
    RRType.NAPTR,
    (f) => ({
      order: f.u16('order'),
      preference: f.u16('preference'),
      flags: f.characterString('flags'),
      services: f.characterString('services'),
      regexp: f.characterString('regexp'),
      replacement: f.name('replacement'),
    }),
  ],
  [
    RRType.TLSA,
    (f) => ({ usage: f.u8('usage'), selector: f.u8('selector'), matchingType: f.u8('matching type'), data: f.hexRest('certificate data') }),
  ],
  [
    RRType.SSHFP,
    (f) => ({ algorithm: f.u8('algorithm'), fingerprintType: f.u8('fingerprint type'), fingerprint: f.hexRest('fingerprint') }),
  ],
  [RRType.DS, ds],
  [RRType.CDS, ds],
  [RRType.DNSKEY, dnskey],
  [RRType.CDNSKEY, dnskey],
  [
    RRType.RRSIG,
    (f) => ({
      typeCovered: f.type('type covered'),
      algorithm: f.algorithm(),
      labels: f.u8('labels'),
      originalTtl: f.u32('original TTL'),
      expiration: f.time('expiration'),
      inception: f.time('inception'),
      keyTag: f.u16('key tag'),
      signerName: f.name('signer name'),
      signature: f.base64Rest('signature'),
    }),
  ],
  [RRType.NSEC, (f) => ({ nextDomain: f.name('next domain name'), types: f.typeList() })],
  [
    RRType.NSEC3,
    (f) => ({
      hashAlgorithm: f.u8('hash algorithm'),
      flags: f.u8('flags'),
      iterations: f.u16('iterations'),
      salt: salt(f),
      nextHashed: f.base32hex('next hashed owner'),
      types: f.typeList(),
    }),
  ],
  [
    RRType.NSEC3PARAM,
    (f) => ({ hashAlgorithm: f.u8('hash algorithm'), flags: f.u8('flags'), iterations: f.u16('iterations'), salt: salt(f) }),
  ],
  // ZONEMD rdata stays bytes in memory (RFC 3597), as it does on the wire.
  [
    RRType.ZONEMD,
    (f) => {
      const w = new Writer(64);
      w.u32(f.u32('serial'));
      w.u8(f.u8('scheme'));
      w.u8(f.u8('hash algorithm'));
      w.bytes(f.hexRest('digest'));
      return w.finish();
    },
  ],
]);

/** Parses the rdata tokens of one record of `type`. */
export function parseRdata(f: Fields, type: number): Rdata {
  if (f.tokens[f.at]?.text === '\\#' && !f.tokens[f.at].quoted) return parseGeneric(f, type);
  const parser = parsers.get(type);
  if (!parser) throw f.error(`type ${type} has no text form here; write its rdata as \\# <length> <hex>`);
  const rdata = parser(f);
  f.end();
  return rdata;
}

// RFC 3597 §5: "\# <length> <hex>"; known types are then read as if from the wire.
function parseGeneric(f: Fields, type: number): Rdata {
  f.next('\\#');
  const length = f.u16('rdata length');
  const bytes = length === 0 ? new Uint8Array(0) : f.hexRest('rdata');
  if (bytes.length !== length) throw f.error(`\\# says ${length} bytes but has ${bytes.length}`);
  if (!parsers.has(type)) return bytes;
  try {
    // Names in generic rdata are uncompressed, so the rdata stands alone as a packet.
    return decodeRdata(new Reader(bytes), type, bytes.length);
  } catch (error) {
    if (error instanceof DnsDecodeError) throw f.error(`\\# rdata is not valid for its type: ${error.message}`);
    throw error;
  }
}
