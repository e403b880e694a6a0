// Everything the RPC methods take from @app/engine, in one place. The engine is built in parallel;
// until its package exports these functions, it is loaded at run time and may be absent.
import { readFileSync } from 'node:fs';

export interface FindingForText {
  module: string;
  testcase: string;
  tag: string;
  level: string;
  args: Record<string, string | number | boolean | null>;
  timestamp: number;
}

export interface DsRecord {
  keytag: number;
  algorithm: number;
  digtype: number;
  digest: string;
}

export interface EngineAdapter {
  readonly engineVersion: string;
  hostAddresses(name: string): Promise<{ ipv4: string[]; ipv6: string[] }>;
  parentData(domain: string): Promise<{ ns_list: { ns: string; ip: string }[]; ds_list: DsRecord[] }>;
  formatFinding(finding: FindingForText, locale: string): string;
  testCaseDescription(testcase: string, locale: string): string;
  testCaseIds(): string[];
}

interface EngineModule {
  engineVersion: string;
  readRootHints(text: string): unknown[];
  createResolver(options?: { rootHints?: unknown[] }): {
    hostAddresses(name: string): Promise<{ ipv4: string[]; ipv6: string[] }>;
    parentData(domain: string): Promise<{ ns_list: { ns: string; ip: string }[]; ds_list: DsRecord[] }>;
  };
  formatFinding(finding: FindingForText, locale: string): string;
  testCaseDescription(testcase: string, locale: string): string;
  testCaseIds(): string[];
}

export class EngineUnavailable extends Error {
  override name = 'EngineUnavailable';
}

/** Loads the engine, with the resolver starting from the configured root hints. */
export async function loadEngine(options: { rootHintsFile?: string }): Promise<EngineAdapter> {
  const specifier = '@app/engine';
  let engine: EngineModule;
  try {
    engine = (await import(specifier)) as EngineModule;
  } catch (error) {
    throw new EngineUnavailable(`The test engine could not be loaded: ${(error as Error).message}`);
  }
  if (typeof engine.createResolver !== 'function' || typeof engine.formatFinding !== 'function') {
    throw new EngineUnavailable('The test engine does not export its resolver and message catalogue yet');
  }
  const rootHints = options.rootHintsFile === undefined ? undefined : engine.readRootHints(readFileSync(options.rootHintsFile, 'utf8'));
  const resolver = () => engine.createResolver(rootHints === undefined ? {} : { rootHints });
  return {
    engineVersion: engine.engineVersion,
    // A fresh resolver per call: its cache must not outlive the answer's TTLs.
    hostAddresses: (name) => resolver().hostAddresses(name),
    parentData: (domain) => resolver().parentData(domain),
    formatFinding: (finding, locale) => engine.formatFinding(finding, locale),
    testCaseDescription: (testcase, locale) => engine.testCaseDescription(testcase, locale),
    testCaseIds: () => engine.testCaseIds(),
  };
}
