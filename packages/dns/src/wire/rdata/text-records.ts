import type { RdataCodec } from './codec.ts';

/** TXT and SPF: one or more character-strings, kept as bytes (they need not be UTF-8). */
export interface TxtData {
  strings: Uint8Array[];
}

export interface HinfoData {
  cpu: Uint8Array;
  os: Uint8Array;
}

/** RFC 8659. */
export interface CaaData {
  flags: number;
  tag: string;
  value: Uint8Array;
}

export const txtCodec: RdataCodec<TxtData> = {
  decode: (r) => {
    const strings: Uint8Array[] = [];
    do strings.push(r.characterString());
    while (r.remaining > 0);
    return { strings };
  },
  encode: (w, d) => {
    for (const s of d.strings) w.characterString(s);
  },
};

export const hinfoCodec: RdataCodec<HinfoData> = {
  decode: (r) => ({ cpu: r.characterString(), os: r.characterString() }),
  encode: (w, d) => {
    w.characterString(d.cpu);
    w.characterString(d.os);
  },
};

export const caaCodec: RdataCodec<CaaData> = {
  decode: (r) => {
    const flags = r.u8();
    const tag = Buffer.from(r.characterString()).toString('latin1');
    return { flags, tag, value: r.rest() };
  },
  encode: (w, d) => {
    w.u8(d.flags);
    w.characterString(Buffer.from(d.tag, 'latin1'));
    w.bytes(d.value);
  },
};
