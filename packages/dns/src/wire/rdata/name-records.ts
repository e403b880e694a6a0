import type { Name } from '../../name.ts';
import type { RdataCodec } from './codec.ts';

/** NS, CNAME, DNAME and PTR: one domain name. */
export interface TargetData {
  target: Name;
}

export interface MxData {
  preference: number;
  exchange: Name;
}

export interface SoaData {
  mname: Name;
  rname: Name;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

export interface SrvData {
  priority: number;
  weight: number;
  port: number;
  target: Name;
}

export interface NaptrData {
  order: number;
  preference: number;
  flags: Uint8Array;
  services: Uint8Array;
  regexp: Uint8Array;
  replacement: Name;
}

export const targetCodec: RdataCodec<TargetData> = {
  decode: (r) => ({ target: r.name() }),
  encode: (w, d, o) => w.name(d.target, o.compress, o.lowercase),
};

export const mxCodec: RdataCodec<MxData> = {
  decode: (r) => ({ preference: r.u16(), exchange: r.name() }),
  encode: (w, d, o) => {
    w.u16(d.preference);
    w.name(d.exchange, o.compress, o.lowercase);
  },
};

export const soaCodec: RdataCodec<SoaData> = {
  decode: (r) => ({
    mname: r.name(),
    rname: r.name(),
    serial: r.u32(),
    refresh: r.u32(),
    retry: r.u32(),
    expire: r.u32(),
    minimum: r.u32(),
  }),
  encode: (w, d, o) => {
    w.name(d.mname, o.compress, o.lowercase);
    w.name(d.rname, o.compress, o.lowercase);
    w.u32(d.serial);
    w.u32(d.refresh);
    w.u32(d.retry);
    w.u32(d.expire);
    w.u32(d.minimum);
  },
};

export const srvCodec: RdataCodec<SrvData> = {
  decode: (r) => ({ priority: r.u16(), weight: r.u16(), port: r.u16(), target: r.name() }),
  encode: (w, d, o) => {
    w.u16(d.priority);
    w.u16(d.weight);
    w.u16(d.port);
    w.name(d.target, o.compress, o.lowercase);
  },
};

export const naptrCodec: RdataCodec<NaptrData> = {
  decode: (r) => ({
    order: r.u16(),
    preference: r.u16(),
    flags: r.characterString(),
    services: r.characterString(),
    regexp: r.characterString(),
    replacement: r.name(),
  }),
  encode: (w, d, o) => {
    w.u16(d.order);
    w.u16(d.preference);
    w.characterString(d.flags);
    w.characterString(d.services);
    w.characterString(d.regexp);
    w.name(d.replacement, o.compress, o.lowercase);
  },
};
