// The Delegation and Consistency modules against real name servers in the lab: each scenario written
// for them gives the finding it was made for, and on every catalogue domain these modules' findings
// agree with the reference engine (zonemaster-cli 8.0.1 / engine 9.0.1, as recorded in
// test/reference-findings/) as (test case, tag, level).
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
  'single.test': [
    'Delegation01 NOT_ENOUGH_NS_DEL ERROR',
    'Delegation01 NOT_ENOUGH_NS_CHILD ERROR',
    'Delegation01 NOT_ENOUGH_IPV6_NS_CHILD ERROR',
  ],
  'sharedip.test': ['Delegation02 DEL_NS_SAME_IP ERROR', 'Delegation02 CHILD_NS_SAME_IP ERROR', 'Delegation02 SAME_IP_ADDRESS ERROR'],
  'quirks.test': [
    'Delegation03 REFERRAL_SIZE_TOO_LARGE WARNING',
    'Delegation04 IS_NOT_AUTHORITATIVE WARNING',
    'Delegation05 UNEXPECTED_RCODE WARNING',
  ],
  'cnamens.test': ['Delegation05 NS_IS_CNAME ERROR'],
  'nosoa.test': ['Delegation06 SOA_NOT_EXISTS ERROR'],
  'mismatch.test': ['Delegation07 EXTRA_NAME_PARENT ERROR', 'Delegation07 EXTRA_NAME_CHILD NOTICE'],
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
  'gluediff.test': ['Consistency05 CS05_ID_ADDR_MISMATCH ERROR'],
  'oobglue.test': ['Consistency05 CS05_OOD_ADDR_MISMATCH WARNING'],
  'noaa.test': ['Consistency05 CS05_CHILD_ZONE_LAME CRITICAL'],
  'glueless.test': ['Consistency05 CS05_MISSING_GLUE_FOR_NS WARNING'],
  'extraaddr.test': ['Consistency05 CS05_EXTRA_ADDR_CHILD NOTICE'],
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
    'Consistency05 CS05_NO_MISMATCH_GLUE_ZONE INFO',
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
      assert.deepEqual(
        expected.filter((e) => !found.has(e)),
        [],
        `found: ${[...found].join(', ')}`,
      );
      assert.deepEqual(
        findings.filter((f) => f.tag === 'MODULE_ERROR').map((f) => f.args.msg),
        [],
      );
    });
  }

  test('the findings carry the arguments a reader needs', async () => {
    const shared = (await ours(lab, 'sharedip.test', ...moduleArgs)).find((f) => f.tag === 'DEL_NS_SAME_IP');
    assert.deepEqual(shared?.args, { nsname_list: 'ns1.sharedip.test;ns3.sharedip.test', ns_ip: '198.51.100.181' });
    const glue = (await ours(lab, 'gluediff.test', ...moduleArgs)).find((f) => f.tag === 'CS05_ID_ADDR_MISMATCH');
    assert.deepEqual(glue?.args, { nsname: 'ns1.gluediff.test', ns_ip_list_glue: '198.51.100.216', ns_ip_list_zone: '198.51.100.215' });
    const missing = (await ours(lab, 'glueless.test', ...moduleArgs)).find((f) => f.tag === 'CS05_MISSING_GLUE_FOR_NS');
    assert.deepEqual(missing?.args, {
      nsname: 'ns1.glueless.test',
      ns_list: 'ns1.nic.test/198.51.100.11;ns1.nic.test/2001:db8:100::11;ns2.nic.test/198.51.100.12;ns2.nic.test/2001:db8:100::12',
    });
    // Out of the zone, the addresses the parent gives and those the name resolves to.
    const ood = (await ours(lab, 'oobglue.test', ...moduleArgs)).find((f) => f.tag === 'CS05_OOD_ADDR_MISMATCH');
    assert.deepEqual(ood?.args, {
      nsname: 'ns1.oobhosts.test',
      ns_ip_list_ref: '198.51.100.221;198.51.100.222',
      ns_ip_list_lookup: '198.51.100.221',
    });
    const v4 = (await ours(lab, 'sharedip.test', ...moduleArgs)).find((f) => f.tag === 'ENOUGH_IPV4_NS_CHILD');
    assert.match(String(v4?.args.ns_list), /^ns1\.sharedip\.test\/198\.51\.100\.181;/);
    const serials = (await ours(lab, 'serials.test', ...moduleArgs)).filter((f) => f.tag === 'SOA_SERIAL').map((f) => f.args.serial);
    assert.equal(serials.length, 2);
  });

  test('Delegation and Consistency agree with zonemaster-cli 8.0.1 on every catalogue domain', async (t) => {
    const disagreements: string[] = [];
    for (const scenario of scenarios) {
      const domain = scenarioDomain(scenario);
      // One engine at a time: the machine's two cores are shared with the rest of the suite.
      // One module per reference run: zonemaster-cli 8.0.1 keeps only the last of several plain --test options.
      const want = keysOf([...(await reference(lab, domain, ['delegation'])), ...(await reference(lab, domain, ['consistency']))], modules);
      const got = keysOf(await ours(lab, domain, ...moduleArgs), modules);
      const missing = want.filter((k) => !got.includes(k));
      const extra = got.filter((k) => !want.includes(k));
      t.diagnostic(
        `${basename(scenario)}: ${want.length - missing.length}/${want.length} agree${extra.length ? `, ${extra.length} extra` : ''}`,
      );
      if (missing.length || extra.length)
        disagreements.push(`${strip(domain)}:\n  missing ${missing.join('\n  missing ')}\n  extra ${extra.join('\n  extra ')}`);
    }
    assert.deepEqual(disagreements, []);
  });
});
