export { startLab, type Lab, type ExecOptions, type ExecResult, type StartLabOptions } from './namespace/start-lab.ts';
export { labUnavailableReason, assertLabAvailable, LabUnavailableError } from './namespace/availability.ts';
export {
  loadScenario,
  parseScenarioText,
  resolveScenarioPath,
  catalogueNames,
  catalogueDir,
  variantSource,
  ScenarioError,
} from './scenario/load-scenario.ts';
export type { Scenario, ServerSpec, ZoneSpec, DnssecSpec, Behaviour, Implementation } from './scenario/scenario-format.ts';
export type { LabServer, WorldPlan } from './world/world-plan.ts';
export { buildWorld } from './world/build-world.ts';
export { runDiff, scenarioDomain, type DiffRow } from './diff/run-diff.ts';
export { commandLineDomain } from './scenario/command-line-domain.ts';
export { catalogueEntries, catalogueListing, type CatalogueEntry } from './scenario/catalogue-listing.ts';
export { compareFindings, type Comparison } from './diff/compare-findings.ts';
export { scenarioReport, catalogueTable } from './diff/diff-report.ts';
export { zonemasterCli, ourEngine, parseFindings, type Finding, type Checker, type CheckerRun } from './diff/checkers.ts';
export {
  execReference,
  referenceCommand,
  referenceUnavailableReason,
  referenceRoot,
  installReferenceCommand,
} from './diff/reference-engine.ts';
export { runDemo } from './demo/run-demo.ts';
export { parseLatency, describeLatency, type Latency } from './scenario/latency.ts';
export { bigChildren, bigWorldDomains, bigWorldSize, type BigChild, type BigChildKind } from './scenario/big-world.ts';
