// The configured root hints, read once per configuration however many parts of the service ask.
import { readFileSync } from 'node:fs';
import { readRootHints, type RootHint } from '@app/engine';
import { ConfigError, type ServiceConfig } from './service-config.ts';

const read = new WeakMap<Pick<ServiceConfig, 'rootHintsFile'>, RootHint[] | undefined>();

/** The hints file's servers, or undefined for the engine's built-in IANA hints. */
export function rootHintsOf(config: Pick<ServiceConfig, 'rootHintsFile'>): RootHint[] | undefined {
  if (read.has(config)) return read.get(config);
  const file = config.rootHintsFile;
  let hints: RootHint[] | undefined;
  try {
    hints = file === undefined ? undefined : readRootHints(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`The root hints ${file ?? ''} cannot be used: ${(error as Error).message}`);
  }
  read.set(config, hints);
  return hints;
}
