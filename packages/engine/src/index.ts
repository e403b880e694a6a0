export type { Level } from './level.ts';
export { levels, worstLevel } from './level.ts';
export type { Finding } from './finding.ts';
export type { DsInput, NameServerInput, TestInput } from './input.ts';
export { runTests, type RunOptions } from './run/run-tests.ts';
export { runTestsWithChain } from './run/run-with-chain.ts';
export { DomainNameError } from './domain-name-fault.ts';
export type { Exchange, Sending } from './net/network.ts';
export type { SharedAnswers } from './net/shared-answers.ts';
export { referenceModules, testCaseIds } from './run/registry.ts';
export { complianceTable, complianceLines, type ComplianceEntry } from './run/compliance-table.ts';
export { parentDs, type ParentDs } from './run/parent-ds-table.ts';
export { transportsTable, transportsLines, type TransportEntry } from './run/transports-table.ts';
export { readRootHints, ianaRootHints, RootHintsError, type RootHint } from './resolver/root-hints.ts';
export { createServiceLookups } from './lookups/service-lookups.ts';
export { LookupFailure } from './lookups/root-watch.ts';
export {
  defaultProfile,
  extendedProfile,
  shippedProfile,
  profileNames,
  loadProfile,
  ProfileError,
  type Profile,
  type ProfileName,
} from './profile/profile.ts';
export { protocolTests, digCommand, signedTest, type ProtocolTest } from './checks/compliance/protocol-tests.ts';
export { locales, formatFinding, testCaseDescription } from './catalogue/catalogue.ts';
export { engineVersion, referenceVersion } from './version.ts';
export { analyseChain, type ChainAnalysis } from './chain/analyse-chain.ts';
export { toDnsvizJson } from './chain/dnsviz-json.ts';
export { drawChainSvg } from './chain/draw-chain.ts';
export { zoneIntegritySummary, zoneIntegrityLines, type ZoneIntegritySummary } from './run/zone-integrity-summary.ts';
export { dnssecSnapshot, type DnssecSnapshot, type ServerDnssec, type SnapshotKey, type SnapshotDs } from './chain/dnssec-snapshot.ts';
