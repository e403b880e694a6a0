import type { Profile } from './profile/profile.ts';

export interface NameServerInput {
  ns: string;
  ip?: string;
}

export interface DsInput {
  keytag: number;
  algorithm: number;
  digtype: number;
  digest: string;
}

export interface TestInput {
  /** A-label form, lower case, no trailing dot ('.' for the root). */
  domain: string;
  ipv4?: boolean;
  ipv6?: boolean;
  /** Non-empty means an undelegated test. */
  nameservers?: NameServerInput[];
  dsInfo?: DsInput[];
  profile?: Profile;
}
