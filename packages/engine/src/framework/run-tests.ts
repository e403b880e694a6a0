// One test run: the zone is set up, test cases run in the reference order, and the run stops after
// Basic when the domain has no delegation or no working name server, as the reference does.
import { Name } from '@app/dns';
import type { Finding, Message } from '../finding.ts';
import type { TestInput } from '../input.ts';
import { Network } from '../net/network.ts';
import { defaultProfile, isTestCaseEnabled, levelOf, type Profile } from '../profile/profile.ts';
import { Resolver } from '../resolver/resolver.ts';
import { ianaRootHints, type RootHint } from '../resolver/root-hints.ts';
import { engineVersion } from '../version.ts';
import { Zone } from '../zone.ts';
import { modules, selectTestCases, unknownSelections } from './registry.ts';
import type { TestContext } from './test-case.ts';

export interface RunOptions {
  rootHints?: readonly RootHint[];
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
  /** 'Module' or 'Module/TestCase'; when given, only these run, without the Basic gate. */
  only?: string[];
  /** Caps on queries in flight, for the run and per server address. */
  maxInFlight?: number;
  maxPerServer?: number;
}

const systemTestCase = 'UNSPECIFIED';

function normalizeDomain(domain: string): string {
  const lower = domain.trim().toLowerCase();
  return lower === '.' || lower === '' ? '.' : lower.replace(/\.$/, '');
}

/** Basic's verdict: a delegation exists and at least one of its servers gave the NS set. */
function canContinue(findings: readonly Finding[]): boolean {
  const basic = new Set(findings.filter((f) => f.module === 'BASIC').map((f) => f.tag));
  return basic.has('HAS_NAMESERVERS') && !basic.has('NO_GLUE_PREVENTS_NAMESERVER_TESTS');
}

export async function runTests(input: TestInput, options: RunOptions = {}): Promise<Finding[]> {
  const started = performance.now();
  const base: Profile = input.profile ?? defaultProfile();
  const profile: Profile = { ...base, net: { ipv4: input.ipv4 ?? base.net.ipv4, ipv6: input.ipv6 ?? base.net.ipv6 } };
  const signal = options.signal ?? new AbortController().signal;
  const domain = normalizeDomain(input.domain);
  const only = options.only ?? [];
  const findings: Finding[] = [];
  const emit = (module: string, testcase: string, message: Message): void => {
    findings.push({ module, testcase, tag: message.tag, level: levelOf(profile, module, message.tag), args: message.args, timestamp: Math.round(performance.now() - started) / 1000 });
  };

  const plan = selectTestCases(only);
  let done = 0;
  let reported = -1;
  const progress = (percent: number): void => {
    if (percent > reported) options.onProgress?.(percent);
    reported = Math.max(reported, percent);
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

  const network = new Network({
    ipv4: profile.net.ipv4,
    ipv6: profile.net.ipv6,
    resolver: profile.resolver.defaults,
    signal,
    ...(options.maxInFlight !== undefined && { maxInFlight: options.maxInFlight }),
    ...(options.maxPerServer !== undefined && { maxPerServer: options.maxPerServer }),
  });
  const resolver = new Resolver(network, options.rootHints ?? ianaRootHints);
  let zone: Zone | undefined;
  try {
    const undelegated = input.nameservers?.length
      ? { nameservers: input.nameservers.map((n) => ({ ns: Name.fromString(n.ns), ...(n.ip && { ip: n.ip }) })), ds: input.dsInfo ?? [] }
      : input.dsInfo?.length ? { nameservers: [], ds: input.dsInfo } : undefined;
    zone = new Zone(Name.fromString(domain), resolver, network, undelegated);
  } catch {
    // A name the wire cannot carry: Basic00 says why, and nothing else can run.
  }

  for (const { tag, nsname } of (await zone?.unaddressedNameservers()) ?? []) {
    emit('SYSTEM', systemTestCase, { tag, args: { domain, nsname } });
  }

  for (const module of modules) {
    for (const { testCase, explicit } of plan.filter((p) => p.module === module)) {
      signal.throwIfAborted();
      const context: TestContext = {
        domain,
        get zone(): Zone {
          if (!zone) throw new Error(`"${domain}" is not a usable domain name`);
          return zone;
        },
        profile,
        signal,
        earlier: findings,
      };
      const precondition = zone || testCase.id === 'Basic00' ? (testCase.precondition?.(context) ?? { run: true }) : { run: false as const };
      if (!precondition.run) {
        // The reference reports this outside any test case.
        if ('instead' in precondition && precondition.instead) emit(module.name, systemTestCase, precondition.instead);
      } else if (explicit || isTestCaseEnabled(profile, testCase.id)) {
        emit(module.name, testCase.id, { tag: 'TEST_CASE_START', args: { testcase: testCase.id } });
        try {
          for (const message of await testCase.run(context)) emit(module.name, testCase.id, message);
        } catch (error) {
          if (signal.aborted) throw signal.reason;
          emit('SYSTEM', testCase.id, { tag: 'MODULE_ERROR', args: { module: module.name, msg: (error as Error).message } });
        }
        emit(module.name, testCase.id, { tag: 'TEST_CASE_END', args: { testcase: testCase.id } });
      }
      done++;
      progress(Math.min(99, Math.floor((done / plan.length) * 100)));
    }
    if (module.name === 'BASIC' && only.length === 0 && !canContinue(findings)) {
      emit('SYSTEM', systemTestCase, { tag: 'CANNOT_CONTINUE', args: { domain } });
      break;
    }
  }
  progress(100);
  return findings;
}
