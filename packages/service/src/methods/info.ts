// version_info, profile_names, get_language_tags: unrestricted, without params.
import { method } from '../rpc/method.ts';
import { object } from '../validation/schema.ts';
import type { ServiceContext } from './context.ts';

const none = object({});

export function infoMethods(context: ServiceContext) {
  return {
    version_info: method(none, {
      run: () =>
        Promise.resolve({
          service_ldns: context.versions.dns,
          service_backend: context.versions.backend,
          service_engine: context.engine.engineVersion,
        }),
    }),
    profile_names: method(none, {
      run: () => Promise.resolve([...context.profiles.values()].filter((p) => p.public).map((p) => p.name).sort()),
    }),
    get_language_tags: method(none, {
      run: () => Promise.resolve([...context.languageTags.tags]),
    }),
  };
}
