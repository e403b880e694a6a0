// version_info, profile_names, get_language_tags: unrestricted, without params.
import { method } from '../rpc/method.ts';
import { object } from '../validation/param-rules.ts';
import type { ServiceContext } from './context.ts';

const none = object({});

export function infoMethods(context: ServiceContext) {
  const versions = () =>
    Promise.resolve({
      service_ldns: context.versions.dns,
      service_backend: context.versions.backend,
      service_engine: context.engine.engineVersion,
    });
  const profileNames = () =>
    Promise.resolve(
      [...context.profiles.values()]
        .filter((p) => p.public)
        .map((p) => p.name)
        .sort(),
    );
  const languageTags = () => Promise.resolve([...context.languageTags.tags]);
  return {
    version_info: method(none, { run: versions }),
    profile_names: method(none, { run: profileNames }),
    get_language_tags: method(none, { run: languageTags }),
    // The reference's newer names (Backend 11): the same answers, the lists wrapped in an object.
    system_versions: method(none, { run: versions }),
    conf_profiles: method(none, { run: async () => ({ profiles: await profileNames() }) }),
    conf_languages: method(none, { run: async () => ({ languages: await languageTags() }) }),
  };
}
