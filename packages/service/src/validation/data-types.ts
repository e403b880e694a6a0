// The spec's data types (section "Data types"), each as a rule.
import { isIP } from 'node:net';
import { domainName } from './domain-name.ts';
import { integer, invalid, matching, object, optional, refine, required, text, type Rule } from './param-rules.ts';

export const apiKey = matching(/^[a-zA-Z0-9-_]{1,512}$/, 'api_key');
export const username = matching(/^[a-zA-Z0-9-.@]{1,50}$/, 'username');
export const clientId = matching(/^[a-zA-Z0-9-+~_.: ]{1,50}$/, 'client_id');
export const clientVersion = matching(/^[a-zA-Z0-9-+~_.: ]{1,50}$/, 'client_version');
export const testId = matching(/^[0-9a-f]{16}$/, 'test_id');
export const nonNegativeInteger = integer({ min: 0 });
export const batchId = integer({ min: 1, id: 'positive' });
export const priority = integer();

/** A queue number, as the reference takes it (an integer), that the configuration lists. */
export function queueIn(queues: readonly number[], listed: string): Rule<number> {
  const known = new Set(queues);
  return refine(integer(), (value, path, issues) => {
    if (!known.has(value)) {
      issues.push({ path, id: 'queue', args: { queues: listed } });
      return invalid;
    }
    return value;
  });
}

/** IPv4 in dotted-quad form or IPv6 without a zone index. */
export const ipAddress: Rule<string> = refine(text, (value, path, issues) => {
  const family = isIP(value);
  if (family === 0 || value.includes('%')) {
    issues.push({ path, id: 'ip' });
    return invalid;
  }
  return family === 6 ? value.toLowerCase() : value;
});

export interface NameServer {
  ns: string;
  ip?: string;
}

// The spec leaves `ip` optional or not open; the reference accepts a name server without one, and
// clients send an empty `ip` for "none", which the reuse fingerprint drops as well.
const nameServerIp: Rule<string | undefined> = (value, path, issues) => (value === '' ? undefined : ipAddress(value, path, issues));

/**
 * What one zone can have: a delegation answer must fit one DNS message, and in practice a zone has
 * at most a few dozen name servers (the root: 13 names, 26 addresses) and a handful of DS records.
 * An entry is one name server name with one address, so a name with both families counts twice.
 */
export const MAX_NAME_SERVERS = 100;
export const MAX_DS_RECORDS = 32;

export const nameServer: Rule<NameServer> = object({ ns: required(domainName), ip: optional(nameServerIp) });

export interface DsInfo {
  keytag: number;
  algorithm: number;
  digtype: number;
  digest: string;
}

export const dsInfo: Rule<DsInfo> = object({
  keytag: required(nonNegativeInteger),
  algorithm: required(nonNegativeInteger),
  digtype: required(nonNegativeInteger),
  digest: required(refine(matching(/^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[0-9a-fA-F]{96})$/, 'digest'), (d) => d.toLowerCase())),
});

const profileNamePattern = /^[a-z0-9]$|^[a-z0-9][a-z0-9_-]{0,30}[a-z0-9]$/i;

/** A profile name, case-insensitive, that the configuration defines; the result is lower case. */
export function profileName(known: ReadonlySet<string>): Rule<string> {
  return refine(matching(profileNamePattern, 'profile_form'), (value, path, issues) => {
    const name = value.toLowerCase();
    if (!known.has(name)) {
      issues.push({ path, id: 'profile_unknown' });
      return invalid;
    }
    return name;
  });
}

export { domainName };
