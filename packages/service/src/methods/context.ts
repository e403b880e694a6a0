import type { Database } from '@app/database';
import type { LoadedProfile } from '../config/profiles.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import type { ServiceSchema } from '../db/tables.ts';
import type { EngineAdapter } from '../engine-adapter.ts';
import type { LanguageTags } from '../validation/language-tags.ts';

/** What the methods share: storage, configuration, and the engine. */
export interface ServiceContext {
  database: Database<ServiceSchema>;
  config: ServiceConfig;
  profiles: ReadonlyMap<string, LoadedProfile>;
  languageTags: LanguageTags;
  engine: EngineAdapter;
  versions: { dns: string; backend: string };
}
