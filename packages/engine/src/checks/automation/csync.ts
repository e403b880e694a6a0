// The CSYNC record (RFC 7477 §2.1) read from its rdata: the codec leaves the type opaque.
export interface Csync {
  serial: number;
  immediate: boolean;
  soaMinimum: boolean;
  /** Flag bits RFC 7477 does not define. */
  otherFlags: number;
  types: number[];
}

export const IMMEDIATE = 0x0001;
export const SOA_MINIMUM = 0x0002;

/** SOA serial, flags and the type bitmap of RFC 4034 §4.1.2; undefined when the rdata is malformed. */
export function parseCsync(rdata: Uint8Array): Csync | undefined {
  if (rdata.length < 6) return undefined;
  const view = Buffer.from(rdata);
  const flags = view.readUInt16BE(4);
  const types: number[] = [];
  for (let at = 6; at < view.length;) {
    if (at + 2 > view.length) return undefined;
    const window = view[at];
    const length = view[at + 1];
    if (length < 1 || length > 32 || at + 2 + length > view.length) return undefined;
    for (let i = 0; i < length; i++)
      for (let bit = 0; bit < 8; bit++) if (view[at + 2 + i] & (0x80 >> bit)) types.push(window * 256 + i * 8 + bit);
    at += 2 + length;
  }
  return {
    serial: view.readUInt32BE(0),
    immediate: (flags & IMMEDIATE) !== 0,
    soaMinimum: (flags & SOA_MINIMUM) !== 0,
    otherFlags: flags & ~(IMMEDIATE | SOA_MINIMUM),
    types,
  };
}
