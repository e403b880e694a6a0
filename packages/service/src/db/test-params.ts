import { createHash } from 'node:crypto';
import type { DsInfo, NameServer } from '../validation/data-types.ts';

/** The normalised params of a test, as get_test_params returns them. */
export interface TestParams {
  domain: string;
  ipv4: boolean;
  ipv6: boolean;
  nameservers: NameServer[];
  ds_info: DsInfo[];
  profile: string;
  priority: number;
  queue: number;
  client_id?: string;
  client_version?: string;
  language?: string;
}

/** Undelegated: the test names its own name servers or DS records. */
export function isUndelegated(params: Pick<TestParams, 'nameservers' | 'ds_info'>): boolean {
  return params.nameservers.length > 0 || params.ds_info.length > 0;
}

/**
 * What makes two requests the same test for the reuse rule: the normalised domain, the address
 * families, the profile, and the DS and name-server lists in a canonical order.
 */
export function fingerprint(params: TestParams): string {
  const nameservers = params.nameservers
    .map((n) => (n.ip === undefined || n.ip === '' ? { ns: n.ns } : { ns: n.ns, ip: n.ip }))
    .sort((a, b) => compare(`${a.ns} ${a.ip ?? ''}`, `${b.ns} ${b.ip ?? ''}`));
  const dsInfo = params.ds_info
    .map((d) => ({ algorithm: d.algorithm, digest: d.digest.toLowerCase(), digtype: d.digtype, keytag: d.keytag }))
    .sort((a, b) => compare(JSON.stringify(a), JSON.stringify(b)));
  const canonical = JSON.stringify({
    domain: params.domain,
    ds_info: dsInfo,
    ipv4: params.ipv4,
    ipv6: params.ipv6,
    nameservers,
    profile: params.profile.toLowerCase(),
  });
  return createHash('sha256').update(canonical).digest('hex');
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
