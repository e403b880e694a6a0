// Everything the RPC methods take from @app/engine, in one place.
import {
  complianceTable,
  createServiceLookups,
  engineVersion,
  formatFinding,
  parentDs,
  testCaseDescription,
  testCaseIds,
  toDnsvizJson,
  zoneIntegritySummary,
  transportsTable,
  type ChainAnalysis,
  type ComplianceEntry,
  type DsInput,
  type Finding,
  type ParentDs,
  type ZoneIntegritySummary,
  type TransportEntry,
} from '@app/engine';
import { rootHintsOf } from './config/root-hints.ts';

/** What a failed lookup rejects with: its `finding`, when set, says why (the root unreachable or intercepted). */
export { LookupFailure } from '@app/engine';
/** A run's DNSSEC as its query log shows it, for the watches' rollover alerts (pure: no query). */
export { dnssecSnapshot, type DnssecSnapshot } from '@app/engine';
import type { ServiceConfig } from './config/service-config.ts';

export interface EngineAdapter {
  readonly engineVersion: string;
  hostAddresses(name: string): Promise<{ ipv4: string[]; ipv6: string[] }>;
  parentData(domain: string): Promise<{ ns_list: { ns: string; ip: string }[]; ds_list: DsInput[] }>;
  formatFinding(finding: Finding, locale: string): string;
  testCaseDescription(testcase: string, locale: string): string;
  testCaseIds(): string[];
  /** A stored chain analysis in dnsviz grok's JSON shape. */
  chainJson(analysis: ChainAnalysis): Record<string, unknown>;
  /** The Compliance module's table (one entry per address) from a run's findings, all levels. */
  complianceTable(findings: readonly Finding[]): ComplianceEntry[];
  /** The Automation module's parent_ds verdict from a run's findings, worded in `locale`; undefined when it did not run. */
  parentDs(findings: readonly Finding[], locale: string): ParentDs | undefined;
  /** The Zone integrity module's summary from a run's findings, all levels; undefined when it did not run. */
  zoneIntegritySummary(findings: readonly Finding[]): ZoneIntegritySummary | undefined;
  /** The Transport module's table (DoT, DoH, serials per transport, one entry per address) from a run's findings. */
  transportsTable(findings: readonly Finding[]): TransportEntry[];
}

/** The engine, with its resolver starting from the configured root hints (IANA's when none). */
export function loadEngine(config: ServiceConfig): EngineAdapter {
  const rootHints = rootHintsOf(config);
  // Fresh lookups per call: their cache must not outlive one answer.
  const lookups = () => createServiceLookups(rootHints === undefined ? {} : { rootHints });
  return {
    engineVersion,
    hostAddresses: (name) => lookups().hostAddresses(name),
    parentData: (domain) => lookups().parentData(domain),
    formatFinding,
    testCaseDescription,
    testCaseIds,
    chainJson: toDnsvizJson,
    complianceTable,
    parentDs: (findings, locale) => parentDs(findings, (finding) => formatFinding(finding, locale)),
    zoneIntegritySummary,
    transportsTable,
  };
}
