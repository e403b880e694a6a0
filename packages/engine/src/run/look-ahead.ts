// Lookups made ahead of a test case's turn, each through a zone and resolver of its own so that no one
// else ever waits for them (or sees them given up); the test case then finds their answers cached.
import type { TestContext } from '../framework/test-case.ts';
import type { Network } from '../net/network.ts';
import { inTestCase } from '../net/query-attribution.ts';
import { lookAhead } from '../net/server-order.ts';
import { isTestCaseEnabled, type Profile } from '../profile/profile.ts';
import { Resolver } from '../resolver/resolver.ts';
import type { RootHint } from '../resolver/root-hints.ts';
import { Zone } from '../zone/tested-zone.ts';
import type { PlannedTestCase } from './registry.ts';

export interface LookAheadContext {
  domain: string;
  zone: Zone;
  /** The name servers and DS records given for an undelegated test. */
  undelegated: ConstructorParameters<typeof Zone>[3];
  network: Network;
  rootHints: readonly RootHint[];
  profile: Profile;
  signal: AbortSignal;
}

function earlyZone({ zone, network, rootHints, undelegated }: LookAheadContext): Zone | undefined {
  try {
    return new Zone(zone.name, new Resolver(network, rootHints, { prefetchFor: zone.name }), network, undelegated);
  } catch {
    // A name the wire cannot carry: the run's own zone reports it.
    return undefined;
  }
}

/**
 * The delegation Basic02 asks about, looked up while Basic01 walks down to the parent (ten round trips
 * that would otherwise follow Basic01's six), as Basic02's queries ahead of its turn.
 */
export function lookAheadForBasic(plan: readonly PlannedTestCase[], run: LookAheadContext): void {
  const early = plan.some((p) => p.testCase.id === 'Basic02') ? earlyZone(run) : undefined;
  if (early) inTestCase('Basic02', () => lookAhead(() => early.glue())).catch(() => {});
}

/** The lookups test cases declare (`lookAhead`), started once the run's order knows what runs. */
export function lookAheadForDeclared(plan: readonly PlannedTestCase[], run: LookAheadContext): void {
  for (const { testCase, explicit } of plan) {
    if (!testCase.lookAhead || !(explicit || isTestCaseEnabled(run.profile, testCase.id))) continue;
    const early = earlyZone(run);
    if (!early) continue;
    const context: TestContext = { domain: run.domain, zone: early, profile: run.profile, signal: run.signal, earlier: [] };
    inTestCase(testCase.id, () => lookAhead(() => testCase.lookAhead!(context))).catch(() => {});
  }
}
