// The engine's Syntax and Zone modules against real name servers in the lab, and against the reference
// engine (zonemaster-cli 8.0.1 / engine 9.0.1, its runs recorded in test/reference-findings/) on the
// same lab. The syntax-*, zone-* and zone-spf-* scenarios (with bad-soa-timers and the root zone) were
// written so that every tag of the two modules a lab can provoke shows up; both engines must report
// the same findings at every level down to DEBUG, arguments included (names without case, lists
// without order, as the reference shuffles both). Lives outside packages/ because it joins the lab
// and the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pLimit from 'p-limit';
import {
  catalogueNames,
  commandLineDomain,
  compareFindings,
  labUnavailableReason,
  scenarioDomain,
  startLab,
  type Finding as LabFinding,
  type Lab,
} from '@app/lab';
import { modules } from '../packages/engine/src/run/registry.ts';
import { ours as oursIn, reference, type Finding } from './support/lab-engines.ts';

// The mix-* scenarios are the held-out lab: features of the others combined anew.
const scenarios = catalogueNames().filter(
  (name) => /^(?:syntax|zone|mix)-/.test(name) || name === 'bad-soa-timers' || name === 'root-zone',
);
const domainOf = (scenario: string): string => commandLineDomain(scenarioDomain(scenario));
const ownModules = ['SYNTAX', 'ZONE'];

const ofTheseModules = (findings: Finding[]): Finding[] =>
  findings.filter((f) => ownModules.includes(f.module.toUpperCase()) && f.tag !== 'TEST_CASE_START' && f.tag !== 'TEST_CASE_END');

const labSkip = await labUnavailableReason();

describe('Syntax and Zone in the lab', { skip: labSkip ?? false }, () => {
  let lab: Lab;
  // Every run starts in before(), a few at a time (most of a run is waiting on silent servers).
  const limit = pLimit(4);
  const ours = new Map<string, Promise<Finding[]>>();
  const theirs = new Map<string, Promise<Finding[]>>();
  before(async () => {
    lab = await startLab(scenarios);
    for (const scenario of scenarios) {
      const domain = domainOf(scenario);
      ours.set(
        scenario,
        limit(async () => ofTheseModules(await oursIn(lab, domain, '--test', 'Syntax', '--test', 'Zone'))),
      );
      // zonemaster-cli 8 reads a second bare '--test' term as a new selection: Zone is added with '+'.
      theirs.set(
        scenario,
        limit(async () => ofTheseModules(await reference(lab, domain, ['syntax'], '--test', '+zone', '--level', 'DEBUG'))),
      );
    }
    // A failed run is reported by the test that reads it.
    for (const pending of [...ours.values(), ...theirs.values()]) pending.catch(() => undefined);
  });
  after(async () => {
    await lab?.stop();
  });

  for (const scenario of scenarios) {
    test(`${scenario}: the findings agree with zonemaster-cli 9.0.1, arguments included`, async () => {
      // Levels are the profile's names, as the lab's comparison reads them.
      const comparison = compareFindings((await theirs.get(scenario)!) as LabFinding[], (await ours.get(scenario)!) as LabFinding[]);
      assert.deepEqual({ missing: comparison.missing, extra: comparison.extra }, { missing: [], extra: [] }, 'by test case, tag and level');
      assert.deepEqual(
        { missing: comparison.arguments.missing, extra: comparison.arguments.extra },
        { missing: [], extra: [] },
        'with arguments',
      );
    });
  }

  test('the SPF policies the zone-spf-* scenarios publish are judged one way each', async () => {
    const tagsOf = async (scenario: string): Promise<Finding[]> => (await ours.get(scenario)!).filter((f) => f.testcase === 'Zone11');
    const only = async (scenario: string): Promise<[string, Record<string, unknown>][]> =>
      (await tagsOf(scenario)).map((f) => [f.tag, f.args]);
    assert.deepEqual(await only('zone-spf-ok'), [['Z11_SPF_SYNTAX_OK', { domain: 'zone-spf-ok.test' }]]);
    const both =
      'ns1.zone-dns.test/198.51.100.20;ns1.zone-dns.test/2001:db8:1600::20;ns2.zone-dns.test/198.51.100.21;ns2.zone-dns.test/2001:db8:1600::21';
    assert.deepEqual(await only('zone-spf-syntax'), [['Z11_SPF_SYNTAX_ERROR', { ns_list: both, domain: 'zone-spf-syntax.test' }]]);
    assert.deepEqual(await only('zone-spf-multiple'), [['Z11_SPF_MULTIPLE_RECORDS', { ns_list: both }]]);
    assert.deepEqual(
      (await only('zone-spf-differ')).map(([tag]) => tag),
      [
        'Z11_INCONSISTENT_SPF_POLICIES',
        'Z11_DIFFERENT_SPF_POLICIES_FOUND',
        'Z11_DIFFERENT_SPF_POLICIES_FOUND',
        'Z11_DIFFERENT_SPF_POLICIES_FOUND',
      ],
    );
    assert.deepEqual(await only('zone-spf-noaa'), [['Z11_UNABLE_TO_CHECK_FOR_SPF', {}]]);
    assert.deepEqual(await only('zone-spf-null-tld'), [['Z11_NULL_SPF_NON_MAIL_DOMAIN', { domain: 'spf-null' }]]);
    assert.deepEqual(await only('zone-spf-arpa'), [['Z11_NON_NULL_SPF_NON_MAIL_DOMAIN', { domain: 'spf-mail.arpa' }]]);
    assert.deepEqual(await only('root-zone'), [['Z11_NO_SPF_NON_MAIL_DOMAIN', { domain: '.' }]]);
    assert.deepEqual(await only('zone-timers'), [['Z11_NO_SPF_FOUND', { domain: 'zone-timers.test' }]]);
  });

  test('every Syntax and Zone tag a lab can provoke is provoked by these scenarios', async () => {
    const seen = new Set((await Promise.all(ours.values())).flat().map((f) => `${f.module}:${f.tag}`));
    // The root and TLD cases of Zone09 with an ordinary MX need a root or TLD zone that takes mail,
    // which no catalogue scenario should be; no server answering MX at all needs one whose servers
    // answer SOA but not MX. Syntax's and Zone10's no-response cases need a zone whose servers answer
    // nothing, where Basic stops the run first; the IP family messages a profile that turns one off.
    // The unit tests of the rules cover what they can of those.
    const notHere = [
      'SYNTAX:NO_RESPONSE',
      'SYNTAX:NO_RESPONSE_SOA_QUERY',
      'SYNTAX:NO_RESPONSE_MX_QUERY',
      'SYNTAX:IPV4_DISABLED',
      'SYNTAX:IPV6_DISABLED',
      'ZONE:NO_RESPONSE_SOA_QUERY',
      'ZONE:NO_RESPONSE_MX_QUERY',
      'ZONE:Z09_ROOT_EMAIL_DOMAIN',
      'ZONE:Z09_TLD_EMAIL_DOMAIN',
      'ZONE:Z09_NO_SERVERS_MX_RESPONSE',
      'ZONE:NO_RESPONSE',
      'ZONE:NO_SOA_IN_RESPONSE',
      'ZONE:WRONG_SOA',
      'ZONE:IPV4_DISABLED',
      'ZONE:IPV6_DISABLED',
    ];
    const declared = modules
      .filter((m) => m.name === 'SYNTAX' || m.name === 'ZONE')
      .flatMap((m) => m.testCases.flatMap((tc) => tc.tags.map((tag) => `${m.name}:${tag}`)));
    const missing = [...new Set(declared)].filter((tag) => !seen.has(tag) && !notHere.includes(tag));
    assert.deepEqual(missing, []);
  });
});
