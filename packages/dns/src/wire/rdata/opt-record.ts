import type { RdataCodec } from './codec.ts';

/** One EDNS option (RFC 6891 §6.1.2); NSID, COOKIE and unknown codes alike keep their bytes. */
export interface EdnsOptionData {
  code: number;
  data: Uint8Array;
}

export interface OptData {
  options: EdnsOptionData[];
}

export const optCodec: RdataCodec<OptData> = {
  decode: (r) => {
    const options: EdnsOptionData[] = [];
    while (r.remaining > 0) {
      const code = r.u16('EDNS option');
      options.push({ code, data: r.take(r.u16('EDNS option'), 'EDNS option') });
    }
    return { options };
  },
  encode: (w, d) => {
    for (const o of d.options) {
      w.u16(o.code);
      w.u16(o.data.length);
      w.bytes(o.data);
    }
  },
};
