// One test run: the zone is set up, Basic runs, and unless the domain has no delegation or no working
// name server (where the reference stops too) every other test case runs at the same time. The parts:
// the order (run-order.ts), one test case's run (test-case-run.ts), lookups ahead of a turn (look-ahead.ts).
import { Name } from '@app/dns';
import { DomainNameError, domainNameFault } from '../domain-name-fault.ts';
import type { Finding } from '../finding.ts';
import type { TestInput } from '../input.ts';
import { Network, type Exchange, type Sending } from '../net/network.ts';
import type { SharedAnswers } from '../net/shared-answers.ts';
import { defaultProfile, isTestCaseEnabled, type Profile } from '../profile/profile.ts';
import { Resolver } from '../resolver/resolver.ts';
import { ianaRootHints, type RootHint } from '../resolver/root-hints.ts';
import { engineVersion } from '../version.ts';
import { Zone } from '../zone/tested-zone.ts';
import { lookAheadForBasic, lookAheadForDeclared } from './look-ahead.ts';
import { modules, referenceModules, selectTestCases, unknownSelections, type PlannedTestCase } from './registry.ts';
import { findingMaker, progressCounter, systemTestCase } from './run-findings.ts';
import { RunOrder } from './run-order.ts';
import { canContinue, runTestCase } from './test-case-run.ts';

export interface RunOptions {
  rootHints?: readonly RootHint[];
  /** The share of test cases done; `detail` counts them. */
  onProgress?: (percent: number, detail?: { done: number; total: number }) => void;
  signal?: AbortSignal;
  /** 'Module' or 'Module/TestCase'; when given, only these run (the Basic gate only when Basic02 is among them). */
  only?: string[];
  /** Caps on queries in flight, for the run and per server address. */
  maxInFlight?: number;
  maxPerServer?: number;
  /** Each finding as it is made (in emission order, which depends on timing). */
  onFinding?: (finding: Finding) => void;
  /** Each query sent and the reply it got, as it comes (with the test case that sent it). */
  onExchange?: (exchange: Exchange) => void;
  /** Each query as it goes out, before any reply: what the run is waiting for. */
  onSend?: (sending: Sending) => void;
  /** Answers about names outside the zone, shared with other runs (net/shared-answers.ts). */
  sharedAnswers?: SharedAnswers;
  /** PEM CA certificates trusted beside the system's when the Transport module checks certificates. */
  tlsCa?: string;
}

function normalizeDomain(domain: string): string {
  const lower = domain.trim().toLowerCase();
  return lower === '.' || lower === '' ? '.' : lower.replace(/\.$/, '');
}

/** The name servers and DS records given for an undelegated test, if any. */
function undelegatedInput(input: TestInput): ConstructorParameters<typeof Zone>[3] {
  return input.nameservers?.length
    ? { nameservers: input.nameservers.map((n) => ({ ns: Name.fromString(n.ns), ...(n.ip && { ip: n.ip }) })), ds: input.dsInfo ?? [] }
    : input.dsInfo?.length
      ? { nameservers: [], ds: input.dsInfo }
      : undefined;
}

/** Rejects with a DomainNameError when the name cannot be tested at all (an empty or overlong label, say). */
export function runTests(input: TestInput, options: RunOptions = {}): Promise<Finding[]> {
  const fault = domainNameFault(normalizeDomain(input.domain));
  if (fault) return Promise.reject(new DomainNameError(`${input.domain}: ${fault}`));
  return runPlan(input, selectTestCases(options.only ?? []), options);
}

/** Runs the given test cases (the registry's selection, or others in the runner's own tests). */
export async function runPlan(input: TestInput, plan: readonly PlannedTestCase[], options: RunOptions = {}): Promise<Finding[]> {
  const base: Profile = input.profile ?? defaultProfile();
  const profile: Profile = { ...base, net: { ipv4: input.ipv4 ?? base.net.ipv4, ipv6: input.ipv6 ?? base.net.ipv6 } };
  const finding = findingMaker(profile, options.onFinding);
  const progress = progressCounter(plan.length, options.onProgress);
  const signal = options.signal ?? new AbortController().signal;
  const domain = normalizeDomain(input.domain);
  const findings: Finding[] = [finding('SYSTEM', systemTestCase, { tag: 'GLOBAL_VERSION', args: { version: engineVersion } })];
  for (const entry of unknownSelections(options.only ?? [])) {
    const [module = '', testcase = 'all'] = entry.split('/');
    const known = modules.some((m) => m.name === module.toUpperCase());
    findings.push(
      finding(
        'SYSTEM',
        systemTestCase,
        known
          ? { tag: 'UNKNOWN_METHOD', args: { module, testcase } }
          : { tag: 'UNKNOWN_MODULE', args: { module, testcase, module_list: referenceModules.join(':') } },
      ),
    );
  }
  if (!profile.net.ipv4 && !profile.net.ipv6) {
    findings.push(finding('SYSTEM', systemTestCase, { tag: 'NO_NETWORK', args: {} }));
    progress.finished();
    return findings;
  }

  const order = new RunOrder(plan);
  let probeName: Name | undefined;
  try {
    probeName = Name.fromString(domain);
  } catch {
    // Not a name the wire can carry: the zone below says so.
  }
  const network = new Network({
    ipv4: profile.net.ipv4,
    ipv6: profile.net.ipv6,
    resolver: profile.resolver.defaults,
    signal,
    ...(options.maxInFlight !== undefined && { maxInFlight: options.maxInFlight }),
    ...(options.maxPerServer !== undefined && { maxPerServer: options.maxPerServer }),
    ...(options.onExchange && { onExchange: options.onExchange }),
    ...(options.onSend && { onSend: options.onSend }),
    earlierDone: order.earlierDone,
    ...(probeName && { probeName }),
    ...(probeName && options.sharedAnswers && { shared: { answers: options.sharedAnswers, below: probeName } }),
    ...(options.tlsCa !== undefined && { tlsCa: options.tlsCa }),
  });
  const rootHints = options.rootHints ?? ianaRootHints;
  const undelegated = undelegatedInput(input);
  let zone: Zone | undefined;
  try {
    zone = new Zone(
      Name.fromString(domain),
      new Resolver(network, rootHints, { ...(probeName && { prefetchFor: probeName }) }),
      network,
      undelegated,
    );
  } catch {
    // A name the wire cannot carry (callers reject it first, as the reference's does): nothing can run.
  }
  for (const { tag, nsname } of (await zone?.unaddressedNameservers()) ?? []) {
    findings.push(finding('SYSTEM', systemTestCase, { tag, args: { domain, nsname } }));
  }

  // As 9.0.1 (with zonemaster-cli 8.0.1, whose --test only narrows the test cases run): the run
  // stops after Basic whenever Basic02 runs and finds no working name server.
  const gated = plan.some((p) => p.testCase.id === 'Basic02' && (p.explicit || isTestCaseEnabled(profile, 'Basic02')));
  const ahead = zone && { domain, zone, undelegated, network, rootHints, profile, signal };
  if (ahead) lookAheadForBasic(plan, ahead);
  // Every planned test case starts once all are known to the order; each waits only for what it reads.
  const planned = Promise.withResolvers<void>();
  for (const entry of plan) {
    order.start(
      entry.testCase.id,
      planned.promise.then(async () => {
        const own = await runTestCase(entry, { domain, zone, profile, signal, gated, order, finding });
        if (own === null) return [];
        progress.testCaseDone();
        return own;
      }),
    );
  }
  if (ahead) lookAheadForDeclared(plan, ahead);
  planned.resolve();

  const perTestCase = await order.inPlanOrder(plan);
  plan.forEach((entry, i) => {
    findings.push(...(perTestCase[i] ?? []));
    const lastBasic = entry.module.name === 'BASIC' && plan[i + 1]?.module.name !== 'BASIC';
    if (lastBasic && gated && !canContinue(findings))
      findings.push(finding('SYSTEM', systemTestCase, { tag: 'CANNOT_CONTINUE', args: { domain } }));
  });
  progress.finished();
  return findings;
}
