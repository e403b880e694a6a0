// A queued test's params as the engine takes them, with the configured profile the params name.
import type { TestInput } from '@app/engine';
import type { LoadedProfile } from '../config/profiles.ts';
import type { TestParams } from '../db/test-params.ts';

/** Throws when the test names a profile the configuration no longer has. */
export function engineInput(params: TestParams, profiles: ReadonlyMap<string, LoadedProfile>): TestInput {
  const loaded = profiles.get(params.profile);
  if (loaded === undefined) throw new Error(`the test names profile "${params.profile}", which is not configured`);
  return {
    domain: params.domain,
    ipv4: params.ipv4,
    ipv6: params.ipv6,
    nameservers: params.nameservers,
    dsInfo: params.ds_info,
    profile: loaded.profile,
  };
}
