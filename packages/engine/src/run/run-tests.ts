// One test run: the zone is set up, Basic runs, and unless the domain has no delegation or no working
// name server (where the reference stops too) every other test case runs at the same time.
import { Name } from '@app/dns';
import { DomainNameError, domainNameFault } from '../domain-name-fault.ts';
import type { Finding, Message } from '../finding.ts';
import type { TestInput } from '../input.ts';
import { Network, type Exchange, type Sending } from '../net/network.ts';
import type { SharedAnswers } from '../net/shared-answers.ts';
import { defaultProfile, isTestCaseEnabled, levelOf, type Profile } from '../profile/profile.ts';
import { Resolver } from '../resolver/resolver.ts';
import { ianaRootHints, type RootHint } from '../resolver/root-hints.ts';
import { engineVersion } from '../version.ts';
import { Zone } from '../zone/tested-zone.ts';
import { moduleOrder, modules, selectTestCases, unknownSelections, type PlannedTestCase } from './registry.ts';
import type { TestContext } from '../framework/test-case.ts';
import { inTestCase } from '../net/query-attribution.ts';
import { lookAhead } from '../net/server-order.ts';

const rank = (moduleName: string): number => (moduleOrder as readonly string[]).indexOf(moduleName);

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
}

// The reference's name for findings made outside any test case.
const systemTestCase = 'Unspecified';

function normalizeDomain(domain: string): string {
  const lower = domain.trim().toLowerCase();
  return lower === '.' || lower === '' ? '.' : lower.replace(/\.$/, '');
}

/** Basic's verdict: a delegation exists and a server answered SOA with authority. */
function canContinue(findings: readonly Finding[]): boolean {
  const basic = new Set(findings.filter((f) => f.module === 'BASIC').map((f) => f.tag));
  return basic.has('B02_AUTH_RESPONSE_SOA') && !basic.has('B02_NO_DELEGATION');
}

/** The name servers and DS records given for an undelegated test, if any. */
function undelegatedInput(input: TestInput): ConstructorParameters<typeof Zone>[3] {
  return input.nameservers?.length
    ? { nameservers: input.nameservers.map((n) => ({ ns: Name.fromString(n.ns), ...(n.ip && { ip: n.ip }) })), ds: input.dsInfo ?? [] }
    : input.dsInfo?.length ? { nameservers: [], ds: input.dsInfo } : undefined;
}

/** Rejects with a DomainNameError when the name cannot be tested at all (an empty or overlong label, say). */
export function runTests(input: TestInput, options: RunOptions = {}): Promise<Finding[]> {
  const fault = domainNameFault(normalizeDomain(input.domain));
  if (fault) return Promise.reject(new DomainNameError(`${input.domain}: ${fault}`));
  return runPlan(input, selectTestCases(options.only ?? []), options);
}

/** Runs the given test cases (the registry's selection, or others in the runner's own tests). */
export async function runPlan(input: TestInput, plan: readonly PlannedTestCase[], options: RunOptions = {}): Promise<Finding[]> {
  const started = performance.now();
  const base: Profile = input.profile ?? defaultProfile();
  const profile: Profile = { ...base, net: { ipv4: input.ipv4 ?? base.net.ipv4, ipv6: input.ipv6 ?? base.net.ipv6 } };
  const signal = options.signal ?? new AbortController().signal;
  const domain = normalizeDomain(input.domain);
  const only = options.only ?? [];
  const findings: Finding[] = [];
  const finding = (module: string, testcase: string, message: Message): Finding => {
    const made: Finding = {
      module,
      testcase,
      tag: message.tag,
      level: levelOf(profile, module, message.tag),
      args: message.args,
      timestamp: Math.round(performance.now() - started) / 1000,
    };
    options.onFinding?.(made);
    return made;
  };
  const emit = (module: string, testcase: string, message: Message): void => {
    findings.push(finding(module, testcase, message));
  };

  let reported = -1;
  let done = 0;
  let reportedDone = -1;
  // Each test case done is reported, even when the percentage stays the same (71 test cases, 100 steps).
  const progress = (percent: number): void => {
    const count = percent === 100 ? plan.length : done;
    if (percent > reported || (percent === reported && count > reportedDone)) options.onProgress?.(percent, { done: count, total: plan.length });
    reported = Math.max(reported, percent);
    reportedDone = Math.max(reportedDone, count);
  };
  progress(0);

  emit('SYSTEM', systemTestCase, { tag: 'GLOBAL_VERSION', args: { version: engineVersion } });
  for (const entry of unknownSelections(only)) {
    const [module = '', testcase = 'all'] = entry.split('/');
    const known = modules.some((m) => m.name === module.toUpperCase());
    emit('SYSTEM', systemTestCase, known ? { tag: 'UNKNOWN_METHOD', args: { module, testcase } } : { tag: 'UNKNOWN_MODULE', args: { module, testcase, module_list: modules.map((m) => m.name).join(':') } });
  }
  if (!profile.net.ipv4 && !profile.net.ipv6) {
    emit('SYSTEM', systemTestCase, { tag: 'NO_NETWORK', args: {} });
    progress(100);
    return findings;
  }

  // Test cases the reference runs before a given one, whose queries to a server it must not overtake
  // (`afterEarlierModules`, `inOrder`): a query of it waits for them only where that can change what it
  // gets (net/server-order.ts); its findings do not wait for theirs.
  // Basic comes first for every other test case: its own run waits for Basic anyway, and a lookup made
  // ahead of its turn (`lookAhead`) is given up no earlier than Basic's end.
  const precedes = new Map<string, string[]>();
  const basicPlanned = plan.filter((p) => p.module.name === 'BASIC').map((p) => p.testCase.id);
  for (const { module, testCase } of plan) {
    const basicFirst = module.name === 'BASIC' ? [] : basicPlanned;
    const earlierModules = testCase.afterEarlierModules ? plan.filter((p) => rank(p.module.name) < rank(module.name)).map((p) => p.testCase.id) : [];
    const sameModule = module.inOrder ? plan.filter((p) => p.module === module).map((p) => p.testCase.id) : [];
    precedes.set(testCase.id, [...new Set([...basicFirst, ...(testCase.after ?? []), ...earlierModules, ...sameModule.slice(0, sameModule.indexOf(testCase.id))])]);
  }
  const finished = new Set<string>();
  const produced = new Map<string, Promise<Finding[]>>();
  const earlierDone = (testcase: string): Promise<unknown> | undefined => {
    // A test case not in the plan (not selected) is not waited for.
    const running = (precedes.get(testcase) ?? []).filter((id) => produced.has(id) && !finished.has(id));
    return running.length === 0 ? undefined : Promise.allSettled(running.flatMap((id) => produced.get(id) ?? []));
  };

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
    earlierDone,
    ...(probeName && { probeName }),
    ...(probeName && options.sharedAnswers && { shared: { answers: options.sharedAnswers, below: probeName } }),
  });
  const resolver = new Resolver(network, options.rootHints ?? ianaRootHints, { ...(probeName && { prefetchFor: probeName }) });
  let zone: Zone | undefined;
  try {
    zone = new Zone(Name.fromString(domain), resolver, network, undelegatedInput(input));
  } catch {
    // A name the wire cannot carry (callers reject it first, as the reference's does): nothing can run.
  }

  for (const { tag, nsname } of (await zone?.unaddressedNameservers()) ?? []) {
    emit('SYSTEM', systemTestCase, { tag, args: { domain, nsname } });
  }

  // Every planned test case starts at once; each waits only for what it reads: Basic as a whole
  // (the gate), and the test cases it names in `after`. Findings are collected per test case and
  // laid out in plan order at the end, so the output never depends on timing.
  const basicIds = plan.filter((p) => p.module.name === 'BASIC').map((p) => p.testCase.id);
  // As 9.0.1 (with zonemaster-cli 8.0.1, whose --test only narrows the test cases run): the run
  // stops after Basic whenever Basic02 runs and finds no working name server.
  const gated = plan.some((p) => p.testCase.id === 'Basic02' && (p.explicit || isTestCaseEnabled(profile, 'Basic02')));
  const planned = Promise.withResolvers<void>();
  const runEntry = async ({ module, testCase, explicit }: PlannedTestCase): Promise<Finding[]> => {
    const own: Finding[] = [];
    await planned.promise;
    // A test case that is not planned (not selected) has no findings to wait for.
    const waitFor = [...new Set([...(module.name === 'BASIC' ? [] : basicIds), ...(testCase.after ?? [])])].flatMap((id) => produced.get(id) ?? []);
    const before = (await Promise.all(waitFor)).flat();
    if (module.name !== 'BASIC' && gated && !canContinue(before)) return own;
    signal.throwIfAborted();
    const context: TestContext = {
      domain,
      get zone(): Zone {
        if (!zone) throw new Error(`"${domain}" is not a usable domain name`);
        return zone;
      },
      profile,
      signal,
      earlier: before,
    };
    const record = (moduleName: string, testcase: string, message: Message): void => {
      own.push(finding(moduleName, testcase, message));
      if (!testCase.tags.includes(message.tag)) {
        own.push(finding('SYSTEM', testCase.id, { tag: 'MODULE_ERROR', args: { module: module.name, msg: `${testCase.id} emitted ${message.tag}, a tag it does not declare` } }));
      }
    };
    const precondition = zone ? (testCase.precondition?.(context) ?? { run: true }) : { run: false as const };
    if (!precondition.run) {
      // The reference reports this outside any test case.
      if ('instead' in precondition && precondition.instead) record(module.name, systemTestCase, precondition.instead);
    } else if (explicit || isTestCaseEnabled(profile, testCase.id)) {
      own.push(finding(module.name, testCase.id, { tag: 'TEST_CASE_START', args: { testcase: testCase.id } }));
      try {
        for (const message of await inTestCase(testCase.id, () => testCase.run(context))) record(module.name, testCase.id, message);
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        own.push(finding('SYSTEM', testCase.id, { tag: 'MODULE_ERROR', args: { module: module.name, msg: (error as Error).message } }));
      }
      own.push(finding(module.name, testCase.id, { tag: 'TEST_CASE_END', args: { testcase: testCase.id } }));
    }
    done++;
    progress(Math.min(99, Math.floor((done / plan.length) * 100)));
    return own;
  };
  // A zone and resolver of its own for lookups made ahead of a test case's turn, so that no one else
  // ever waits for them (or sees them given up); the test case then finds their answers.
  const earlyZone = (): Zone | undefined => {
    if (!zone) return undefined;
    try {
      return new Zone(zone.name, new Resolver(network, options.rootHints ?? ianaRootHints, { prefetchFor: zone.name }), network, undelegatedInput(input));
    } catch {
      // As for the zone above.
      return undefined;
    }
  };
  // The delegation Basic02 asks about is looked up while Basic01 walks down to the parent (ten round
  // trips that would otherwise follow Basic01's six), as Basic02's queries ahead of its turn.
  const basicEarly = plan.some((p) => p.testCase.id === 'Basic02') ? earlyZone() : undefined;
  if (basicEarly) inTestCase('Basic02', () => lookAhead(() => basicEarly.glue())).catch(() => {});
  for (const entry of plan) {
    const id = entry.testCase.id;
    produced.set(id, runEntry(entry).finally(() => finished.add(id)));
  }
  // Test cases that declare lookups ahead of their turn start them now, once the order knows what runs.
  for (const { testCase, explicit } of plan) {
    if (!testCase.lookAhead || !(explicit || isTestCaseEnabled(profile, testCase.id))) continue;
    const early = earlyZone();
    if (!early) continue;
    const context: TestContext = { domain, zone: early, profile, signal, earlier: [] };
    inTestCase(testCase.id, () => lookAhead(() => testCase.lookAhead!(context))).catch(() => {});
  }
  planned.resolve();
  const perTestCase = await Promise.all(plan.map((entry) => produced.get(entry.testCase.id)!));

  plan.forEach((entry, i) => {
    findings.push(...perTestCase[i]);
    const lastBasic = entry.module.name === 'BASIC' && plan[i + 1]?.module.name !== 'BASIC';
    if (lastBasic && gated && !canContinue(findings)) findings.push(finding('SYSTEM', systemTestCase, { tag: 'CANNOT_CONTINUE', args: { domain } }));
  });
  progress(100);
  return findings;
}
