// Modules in the order the reference runs them. A module appears here once it has test cases.
import { address } from '../checks/address.ts';
import { automation } from '../checks/automation/automation.ts';
import { basic } from '../checks/basic.ts';
import { compliance } from '../checks/compliance/compliance.ts';
import { connectivity } from '../checks/connectivity.ts';
import { consistency } from '../checks/consistency.ts';
import { delegation } from '../checks/delegation.ts';
import { dnssec } from '../checks/dnssec/index.ts';
import { nameserver } from '../checks/nameserver.ts';
import { syntax } from '../checks/syntax.ts';
import { transport } from '../checks/transport/transport.ts';
import { zone } from '../checks/zone.ts';
import { zoneIntegrity } from '../checks/zone-integrity/index.ts';
import type { TestCase, TestModule } from '../framework/test-case.ts';

// COMPLIANCE, AUTOMATION, ZONE_INTEGRITY and TRANSPORT are beyond the reference: last, and only in profiles that name their test cases (`extended`).
export const moduleOrder = [
  'BASIC',
  'ADDRESS',
  'CONNECTIVITY',
  'CONSISTENCY',
  'DELEGATION',
  'DNSSEC',
  'NAMESERVER',
  'SYNTAX',
  'ZONE',
  'COMPLIANCE',
  'AUTOMATION',
  'ZONE_INTEGRITY',
  'TRANSPORT',
] as const;

const beyondReference: readonly string[] = ['COMPLIANCE', 'AUTOMATION', 'ZONE_INTEGRITY', 'TRANSPORT'];

/** The reference's modules, as its module list names them (UNKNOWN_MODULE). */
export const referenceModules: readonly string[] = moduleOrder.filter((name) => !beyondReference.includes(name));

const implemented: readonly TestModule[] = [
  basic,
  address,
  connectivity,
  consistency,
  delegation,
  dnssec,
  nameserver,
  syntax,
  zone,
  compliance,
  automation,
  zoneIntegrity,
  transport,
];

export const modules: readonly TestModule[] = moduleOrder.flatMap((name) => implemented.filter((m) => m.name === name));

export function testCaseIds(): string[] {
  return modules.flatMap((m) => m.testCases.map((tc) => tc.id));
}

/** The test cases `only` selects ('Module' or 'Module/TestCase', any case); all when empty. */
export interface PlannedTestCase {
  module: TestModule;
  testCase: TestCase;
  /** Named in the selection, so it runs even where the profile turns it off. */
  explicit: boolean;
}

export function selectTestCases(only: readonly string[]): PlannedTestCase[] {
  const wanted = only.map((entry) => {
    const [module = '', testcase] = entry.split('/');
    return { module: module.toUpperCase(), testcase: testcase?.toLowerCase() };
  });
  return modules.flatMap((module) =>
    module.testCases
      .filter(
        (tc) =>
          wanted.length === 0 ||
          wanted.some((w) => w.module === module.name && (w.testcase === undefined || w.testcase === tc.id.toLowerCase())),
      )
      .map((testCase) => ({ module, testCase, explicit: wanted.length > 0 })),
  );
}

/** Entries of `only` that name no known module or test case. */
export function unknownSelections(only: readonly string[]): string[] {
  return only.filter((entry) => selectTestCases([entry]).length === 0);
}
