// Registry numbers (IANA "Domain Name System (DNS) Parameters") as const objects with reverse maps.

function reverse<T extends Record<string, number>>(table: T): ReadonlyMap<number, keyof T & string> {
  return new Map(Object.entries(table).map(([name, value]) => [value, name]));
}

export const RRType = {
  A: 1,
  NS: 2,
  MD: 3,
  MF: 4,
  CNAME: 5,
  SOA: 6,
  MB: 7,
  MG: 8,
  MR: 9,
  NULL: 10,
  WKS: 11,
  PTR: 12,
  HINFO: 13,
  MINFO: 14,
  MX: 15,
  TXT: 16,
  RP: 17,
  AFSDB: 18,
  X25: 19,
  ISDN: 20,
  RT: 21,
  NSAP: 22,
  SIG: 24,
  KEY: 25,
  PX: 26,
  AAAA: 28,
  LOC: 29,
  NXT: 30,
  SRV: 33,
  NAPTR: 35,
  KX: 36,
  CERT: 37,
  A6: 38,
  DNAME: 39,
  OPT: 41,
  APL: 42,
  DS: 43,
  SSHFP: 44,
  IPSECKEY: 45,
  RRSIG: 46,
  NSEC: 47,
  DNSKEY: 48,
  DHCID: 49,
  NSEC3: 50,
  NSEC3PARAM: 51,
  TLSA: 52,
  SMIMEA: 53,
  HIP: 55,
  CDS: 59,
  CDNSKEY: 60,
  OPENPGPKEY: 61,
  CSYNC: 62,
  ZONEMD: 63,
  SVCB: 64,
  HTTPS: 65,
  SPF: 99,
  TKEY: 249,
  TSIG: 250,
  IXFR: 251,
  AXFR: 252,
  ANY: 255,
  URI: 256,
  CAA: 257,
} as const;
export type RRTypeName = keyof typeof RRType;
export const rrTypeNames = reverse(RRType);

export const RRClass = { IN: 1, CH: 3, HS: 4, NONE: 254, ANY: 255 } as const;
export type RRClassName = keyof typeof RRClass;
export const rrClassNames = reverse(RRClass);

export const Opcode = { QUERY: 0, IQUERY: 1, STATUS: 2, NOTIFY: 4, UPDATE: 5, DSO: 6 } as const;
export const opcodeNames = reverse(Opcode);

/** Rcodes above 15 need EDNS (the upper 8 bits travel in the OPT record). */
export const Rcode = {
  NOERROR: 0,
  FORMERR: 1,
  SERVFAIL: 2,
  NXDOMAIN: 3,
  NOTIMP: 4,
  REFUSED: 5,
  YXDOMAIN: 6,
  YXRRSET: 7,
  NXRRSET: 8,
  NOTAUTH: 9,
  NOTZONE: 10,
  DSOTYPENI: 11,
  BADVERS: 16,
  BADKEY: 17,
  BADTIME: 18,
  BADMODE: 19,
  BADNAME: 20,
  BADALG: 21,
  BADTRUNC: 22,
  BADCOOKIE: 23,
} as const;
export const rcodeNames = reverse(Rcode);

export const EdnsOption = {
  NSID: 3,
  DAU: 5,
  DHU: 6,
  N3U: 7,
  CLIENT_SUBNET: 8,
  EXPIRE: 9,
  COOKIE: 10,
  TCP_KEEPALIVE: 11,
  PADDING: 12,
  EDE: 15,
} as const;

export const DnssecAlgorithm = {
  RSAMD5: 1,
  DH: 2,
  DSA: 3,
  RSASHA1: 5,
  DSA_NSEC3_SHA1: 6,
  RSASHA1_NSEC3_SHA1: 7,
  RSASHA256: 8,
  RSASHA512: 10,
  ECC_GOST: 12,
  ECDSAP256SHA256: 13,
  ECDSAP384SHA384: 14,
  ED25519: 15,
  ED448: 16,
} as const;

export const DigestType = { SHA1: 1, SHA256: 2, GOST: 3, SHA384: 4 } as const;

/** Type mnemonic, or the RFC 3597 `TYPEnnn` form for unknown numbers. */
export function typeToString(type: number): string {
  return rrTypeNames.get(type) ?? `TYPE${type}`;
}

export function classToString(cls: number): string {
  return rrClassNames.get(cls) ?? `CLASS${cls}`;
}

/** Accepts mnemonics and the RFC 3597 `TYPEnnn` form; undefined when neither. */
export function typeFromString(text: string): number | undefined {
  const upper = text.toUpperCase();
  if (upper in RRType) return RRType[upper as RRTypeName];
  const m = /^TYPE(\d{1,5})$/.exec(upper);
  return m && Number(m[1]) <= 0xffff ? Number(m[1]) : undefined;
}

export function classFromString(text: string): number | undefined {
  const upper = text.toUpperCase();
  if (upper in RRClass) return RRClass[upper as RRClassName];
  const m = /^CLASS(\d{1,5})$/.exec(upper);
  return m && Number(m[1]) <= 0xffff ? Number(m[1]) : undefined;
}
