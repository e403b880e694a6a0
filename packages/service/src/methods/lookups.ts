// get_host_by_name and get_data_from_parent_zone: live DNS lookups through the engine's resolver.
import { method } from '../rpc/method.ts';
import { domainName } from '../validation/data-types.ts';
import { languageTag } from '../validation/language-tags.ts';
import { object, optional, required, text, refine } from '../validation/schema.ts';
import type { ServiceContext } from './context.ts';

export function lookupMethods(context: ServiceContext) {
  return {
    get_host_by_name: method(object({ hostname: required(refine(text, (given, path, issues) => {
        const name = domainName(given, path, issues);
        return typeof name === 'string' ? { given, name } : name;
      })) }), {
      // The answer is keyed by the hostname as the client wrote it.
      run: async ({ hostname }) => {
        const { ipv4, ipv6 } = await (await context.engine()).hostAddresses(hostname.name);
        const addresses = [...ipv4, ...ipv6];
        if (addresses.length === 0) return [{ [hostname.given]: '0.0.0.0' }];
        return addresses.map((address) => ({ [hostname.given]: address }));
      },
    }),
    get_data_from_parent_zone: method(object({ domain: required(domainName), language: optional(languageTag(context.languageTags)) }), {
      acceptsLanguage: true,
      run: async ({ domain }) => {
        const { ns_list, ds_list } = await (await context.engine()).parentData(domain);
        return { ns_list, ds_list };
      },
    }),
  };
}
