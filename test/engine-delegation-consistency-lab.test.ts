// The Delegation and Consistency modules against real name servers in the lab: each scenario written
// for them gives the finding it was made for, and on every catalogue domain these modules' findings
// agree with the reference engine (Debian's zonemaster-cli) as (test case, tag, level).
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { keysOf, ours, reference, scenariosWithDomains, strip } from './support/lab-engines.ts';

const modules = ['delegation', 'consistency'];
const moduleArgs = modules.flatMap((m) => ['--test', m]);

// Domain -> findings (test case, tag, level) its scenario was written to provoke.
const provoked: Record<string, string[]> = {
  'v6only.test': ['Delegation01 NO_IPV4_NS_CHILD WARNING', 'Delegation01 NO_IPV4_NS_DEL WARNING', 'Delegation01 ENOUGH_IPV6_NS_DEL INFO'],
  'single.test': ['Delegation01 NOT_ENOUGH_NS_DEL ERROR', 'Delegation01 NOT_ENOUGH_NS_CHILD ERROR', 'Delegation01 NOT_ENOUGH_IPV6_NS_CHILD ERROR'],
  'sharedip.test': ['Delegation02 DEL_NS_SAME_IP ERROR', 'Delegation02 CHILD_NS_SAME_IP ERROR', 'Delegation02 SAME_IP_ADDRESS ERROR'],
  'quirks.test': ['Delegation03 REFERRAL_SIZE_TOO_LARGE WARNING', 'Delegation04 IS_NOT_AUTHORITATIVE WARNING', 'Delegation05 UNEXPECTED_RCODE WARNING'],
  'cnamens.test': ['Delegation05 NS_IS_CNAME ERROR'],
  'nosoa.test': ['Delegation06 SOA_NOT_EXISTS ERROR'],
  'mismatch.test': ['Delegation07 EXTRA_NAME_PARENT ERROR', 'Delegation07 EXTRA_NAME_CHILD NOTICE', 'Consistency05 EXTRA_ADDRESS_CHILD NOTICE'],
  'disjoint.test': ['Delegation07 TOTAL_NAME_MISMATCH ERROR'],
  'serials.test': ['Consistency01 MULTIPLE_SOA_SERIALS WARNING', 'Consistency01 SOA_SERIAL_VARIATION NOTICE'],
  'differ.test': [
    'Consistency02 MULTIPLE_SOA_RNAMES NOTICE',
    'Consistency02 SOA_RNAME INFO',
    'Consistency03 MULTIPLE_SOA_TIME_PARAMETER_SET NOTICE',
    'Consistency04 MULTIPLE_NS_SET NOTICE',
    'Consistency04 NS_SET INFO',
    'Consistency06 MULTIPLE_SOA_MNAMES NOTICE',
  ],
  'gluediff.test': ['Consistency05 IN_BAILIWICK_ADDR_MISMATCH ERROR'],
  'oobglue.test': ['Consistency05 OUT_OF_BAILIWICK_ADDR_MISMATCH ERROR'],
  'noaa.test': ['Consistency05 CHILD_ZONE_LAME ERROR'],
  'healthy.test': [
    'Delegation01 ENOUGH_NS_DEL INFO',
    'Delegation02 DISTINCT_IP_ADDRESS INFO',
    'Delegation03 REFERRAL_SIZE_OK INFO',
    'Delegation04 ARE_AUTHORITATIVE INFO',
    'Delegation05 NO_NS_CNAME INFO',
    'Delegation06 SOA_EXISTS INFO',
    'Delegation07 NAMES_MATCH INFO',
    'Consistency01 ONE_SOA_SERIAL INFO',
    'Consistency02 ONE_SOA_RNAME INFO',
    'Consistency03 ONE_SOA_TIME_PARAMETER_SET INFO',
    'Consistency04 ONE_NS_SET INFO',
    'Consistency05 ADDRESSES_MATCH INFO',
    'Consistency06 ONE_SOA_MNAME INFO',
  ],
};

const skipReason = await labUnavailableReason();
const scenarios = scenariosWithDomains();

describe('Delegation and Consistency in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  before(async () => {
    lab = await startLab(scenarios);
  });
  after(async () => {
    await lab?.stop();
  });

  for (const [domain, expected] of Object.entries(provoked)) {
    test(`${domain}: ${expected.map((e) => e.split(' ')[1]).join(', ')}`, async () => {
      const findings = await ours(lab, domain, ...moduleArgs);
      const found = new Set(findings.map((f) => `${f.testcase} ${f.tag} ${f.level}`));
      assert.deepEqual(expected.filter((e) => !found.has(e)), [], `found: ${[...found].join(', ')}`);
      assert.deepEqual(findings.filter((f) => f.tag === 'MODULE_ERROR').map((f) => f.args.msg), []);
    });
  }

  test('the findings carry the arguments a reader needs', async () => {
    const shared = (await ours(lab, 'sharedip.test', ...moduleArgs)).find((f) => f.tag === 'DEL_NS_SAME_IP');
    assert.deepEqual(shared?.args, { nsname_list: 'ns1.sharedip.test;ns3.sharedip.test', ns_ip: '198.51.100.181' });
    const glue = (await ours(lab, 'gluediff.test', ...moduleArgs)).find((f) => f.tag === 'IN_BAILIWICK_ADDR_MISMATCH');
    assert.deepEqual(glue?.args, {
      parent_addresses: 'ns1.gluediff.test./198.51.100.215;ns1.gluediff.test./198.51.100.216;ns2.gluediff.test./198.51.100.217',
      zone_addresses: 'ns1.gluediff.test./198.51.100.215;ns2.gluediff.test./198.51.100.217',
    });
    const serials = (await ours(lab, 'serials.test', ...moduleArgs)).filter((f) => f.tag === 'SOA_SERIAL').map((f) => f.args.serial);
    assert.equal(serials.length, 2);
  });

  test('Delegation and Consistency agree with zonemaster-cli on every catalogue domain', async (t) => {
    const disagreements: string[] = [];
    for (const scenario of scenarios) {
      const domain = scenarioDomain(scenario);
      // One engine at a time: the machine's two cores are shared with the rest of the suite.
      const want = keysOf(await reference(lab, domain, modules), modules);
      const got = keysOf(await ours(lab, domain, ...moduleArgs), modules);
      const missing = want.filter((k) => !got.includes(k));
      const extra = got.filter((k) => !want.includes(k));
      t.diagnostic(`${basename(scenario)}: ${want.length - missing.length}/${want.length} agree${extra.length ? `, ${extra.length} extra` : ''}`);
      if (missing.length || extra.length) disagreements.push(`${strip(domain)}:\n  missing ${missing.join('\n  missing ')}\n  extra ${extra.join('\n  extra ')}`);
    }
    assert.deepEqual(disagreements, []);
  });
});
