// What the chain analysis finds, per zone from the root down: the shapes DNSViz's view is drawn from.
import type { DsStatus, Problem, RrsigStatus } from './statuses.ts';

export type DelegationStatus = 'SECURE' | 'INSECURE' | 'BOGUS' | 'INCOMPLETE' | 'LAME';

export interface ChainRrsig {
  /** "signer/algorithm/key tag", DNSViz's id. */
  id: string;
  signer: string;
  algorithm: number;
  keyTag: number;
  originalTtl: number;
  labels: number;
  inception: number;
  expiration: number;
  ttl: number;
  status: RrsigStatus;
  /** The DNSKEY ("algorithm/key tag") it was judged with; absent when the signer has none that fits. */
  key?: string;
  errors: Problem[];
  servers: string[];
}

export interface ChainRrset {
  name: string;
  type: number;
  ttl: number;
  rdata: string[];
  servers: string[];
  rrsigs: ChainRrsig[];
}

export interface ChainQuery {
  name: string;
  type: number;
  /** answer: RRsets came; nodata/nxdomain: a negative answer (with its NSEC/NSEC3 proof status); error: no usable answer. */
  kind: 'answer' | 'nodata' | 'nxdomain' | 'error';
  rrsets: ChainRrset[];
  proof?: { type: 'NSEC' | 'NSEC3'; status: 'VALID' | 'INVALID'; rrsets: ChainRrset[] };
  servers: string[];
}

export interface ChainDnskey {
  /** "algorithm/key tag". */
  id: string;
  flags: number;
  protocol: number;
  algorithm: number;
  key: string;
  ttl: number;
  keyLength: number;
  keyTag: number;
  servers: string[];
  /** The RRsets ("name/TYPE") this key makes a valid signature over. */
  signs: string[];
}

export interface ChainDs {
  /** "algorithm/key tag/digest type". */
  id: string;
  algorithm: number;
  keyTag: number;
  digestType: number;
  digest: string;
  ttl: number;
  status: DsStatus;
  /** The DNSKEY ("algorithm/key tag") it was judged against. */
  key?: string;
  errors: Problem[];
  warnings: Problem[];
  servers: string[];
}

export interface ChainZone {
  /** With the final dot, lower case. */
  name: string;
  parent?: string;
  status: 'NOERROR' | 'NXDOMAIN';
  servers: { name: string; glue: string[]; auth: string[] }[];
  dnskeys: ChainDnskey[];
  delegation?: { status: DelegationStatus; ds: ChainDs[]; errors: Problem[] };
  queries: ChainQuery[];
  /** What the run did not ask that DNSViz's view would use, said plainly. */
  notes: string[];
}

export interface ChainAnalysis {
  domain: string;
  /** Seconds since the epoch at which signatures were judged. */
  judgedAt: number;
  zones: ChainZone[];
}
