// The configured profiles, read once at start: the service needs their address-family defaults.
import { readFileSync } from 'node:fs';
import type { ProfileSource } from './service-config.ts';
import { ConfigError } from './service-config.ts';

export interface LoadedProfile {
  name: string;
  public: boolean;
  /** The profile JSON as written; empty for the built-in default. */
  json: Record<string, unknown>;
  /** `net.ipv4` and `net.ipv6`, true when the profile leaves them out, as the default profile does. */
  ipv4: boolean;
  ipv6: boolean;
}

export function loadProfiles(sources: ReadonlyMap<string, ProfileSource>): Map<string, LoadedProfile> {
  const loaded = new Map<string, LoadedProfile>();
  for (const source of sources.values()) {
    let json: Record<string, unknown> = {};
    if (source.path !== undefined) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(source.path, 'utf8'));
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
        json = parsed as Record<string, unknown>;
      } catch (error) {
        throw new ConfigError(`Profile "${source.name}" (${source.path}) cannot be used: ${(error as Error).message}`);
      }
    }
    const net = (json.net ?? {}) as Record<string, unknown>;
    loaded.set(source.name, {
      name: source.name,
      public: source.public,
      json,
      ipv4: typeof net.ipv4 === 'boolean' ? net.ipv4 : true,
      ipv6: typeof net.ipv6 === 'boolean' ? net.ipv6 : true,
    });
  }
  return loaded;
}
