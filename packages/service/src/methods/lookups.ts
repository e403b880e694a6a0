// get_host_by_name and get_data_from_parent_zone: live DNS lookups through the engine's resolver.
import { LookupFailure } from '../engine-adapter.ts';
import { MethodError } from '../rpc/errors.ts';
import { method } from '../rpc/method.ts';
import { domainName } from '../validation/data-types.ts';
import { languageTag, messageLocale } from '../validation/language-tags.ts';
import { invalid, object, optional, refine, required, text } from '../validation/param-rules.ts';
import type { ServiceContext } from './context.ts';

/** The hostname as written (the answer is keyed by it) and its normalised form (what is looked up). */
const hostname = refine(text, (given, path, issues) => {
  const name = domainName(given, path, issues);
  return name === invalid ? invalid : { given, name };
});

/**
 * A failed lookup as -32603 "DNS lookup failed". When the root cannot be reached or is intercepted,
 * `data` carries the finding a test would report (its tag and arguments, and its text in the call's
 * language as `reason`), so an empty answer is never given for a network without DNS.
 */
async function lookup<T>(context: ServiceContext, what: string, language: string | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const finding = error instanceof LookupFailure ? error.finding : undefined;
    if (finding) {
      const reason = context.engine.formatFinding(finding, messageLocale(context.languageTags, language));
      throw new MethodError('DNS lookup failed', { lookup: what, reason, tag: finding.tag, level: finding.level, ...finding.args });
    }
    throw new MethodError('DNS lookup failed', { lookup: what, reason: error instanceof Error ? error.message : String(error) });
  }
}

export function lookupMethods(context: ServiceContext) {
  const hostParams = object({ hostname: required(hostname) });
  const hostAddresses = async ({ hostname: host }: { hostname: { given: string; name: string } }) => {
    const { ipv4, ipv6 } = await lookup(context, host.name, undefined, () => context.engine.hostAddresses(host.name));
    const addresses = [...ipv4, ...ipv6];
    if (addresses.length === 0) return [{ [host.given]: '0.0.0.0' }];
    return addresses.map((address) => ({ [host.given]: address }));
  };
  const parentParams = object({ domain: required(domainName), language: optional(languageTag(context.languageTags)) });
  const parentData = async ({ domain, language }: { domain: string; language?: string | undefined }) => {
    const { ns_list, ds_list } = await lookup(context, domain, language, () => context.engine.parentData(domain));
    return { ns_list, ds_list };
  };
  return {
    get_host_by_name: method(hostParams, { run: hostAddresses }),
    get_data_from_parent_zone: method(parentParams, { acceptsLanguage: true, run: parentData }),
    // The reference's newer names (Backend 11).
    lookup_address_records: method(hostParams, { run: async (params) => ({ address_records: await hostAddresses(params) }) }),
    lookup_delegation_data: method(parentParams, { acceptsLanguage: true, run: parentData }),
  };
}
