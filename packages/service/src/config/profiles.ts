// The configured profiles, read and checked by the engine once at start: the service needs their
// address-family defaults, and the agent runs tests with them.
import { readFileSync } from 'node:fs';
import { loadProfile, shippedProfile, type Profile } from '@app/engine';
import type { ProfileSource } from './service-config.ts';
import { ConfigError } from './service-config.ts';

export interface LoadedProfile {
  name: string;
  /** Listed by profile_names. */
  public: boolean;
  /** The file overlaid on the engine's default profile. */
  profile: Profile;
  /** `net.ipv4` and `net.ipv6`: the defaults of a test's ipv4 and ipv6. */
  ipv4: boolean;
  ipv6: boolean;
}

export function loadProfiles(sources: ReadonlyMap<string, ProfileSource>): Map<string, LoadedProfile> {
  const loaded = new Map<string, LoadedProfile>();
  for (const source of sources.values()) {
    let profile: Profile;
    try {
      profile =
        source.path === undefined
          ? shippedProfile(source.name === 'extended' ? 'extended' : 'default')
          : loadProfile(JSON.parse(readFileSync(source.path, 'utf8')));
    } catch (error) {
      throw new ConfigError(`Profile "${source.name}" (${source.path ?? 'built in'}) cannot be used: ${(error as Error).message}`);
    }
    loaded.set(source.name, { name: source.name, public: source.public, profile, ipv4: profile.net.ipv4, ipv6: profile.net.ipv6 });
  }
  return loaded;
}
