// The Connectivity module against real name servers in the lab, its AS and prefix data served by the
// lab's Cymru-style zones (base.yaml): the connectivity-* scenarios give the prefix and AS findings they
// were written for, with their arguments, and on every catalogue domain the module's findings agree
// with the reference engine (zonemaster-cli 8.0.1 / engine 9.0.1, as recorded in
// test/reference-findings/) as (test case, tag, level).
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { keysOf, ours, reference, scenariosWithDomains, strip } from './support/lab-engines.ts';

const modules = ['connectivity'];
const moduleArgs = ['--test', 'connectivity'];

const skipReason = await labUnavailableReason();
const scenarios = scenariosWithDomains();

describe('Connectivity in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  before(async () => {
    lab = await startLab(scenarios);
  });
  after(async () => {
    await lab?.stop();
  });

  /** The arguments of each finding with `tag`, in emission order. */
  const tagged = async (domain: string, tag: string): Promise<Record<string, unknown>[]> =>
    (await ours(lab, domain, ...moduleArgs)).filter((f) => f.tag === tag).map((f) => f.args);

  test('two servers sharing a prefix and a third in another: SAME_PREFIX names the pair, DIFFERENT_PREFIX the third, per family', async () => {
    const ns = (n: number, ip: string): string => `ns${n}.prefix-split.test/${ip}`;
    assert.deepEqual(await tagged('prefix-split.test', 'CN04_IPV4_SAME_PREFIX'), [
      { ip_prefix: '198.51.100.0/24', ns_list: `${ns(1, '198.51.100.160')};${ns(2, '198.51.100.161')}` },
    ]);
    assert.deepEqual(await tagged('prefix-split.test', 'CN04_IPV4_DIFFERENT_PREFIX'), [{ ns_list: ns(3, '203.0.113.242') }]);
    assert.deepEqual(await tagged('prefix-split.test', 'CN04_IPV6_SAME_PREFIX'), [
      { ip_prefix: '2001:db8:1720::/44', ns_list: `${ns(1, '2001:db8:1720::240')};${ns(2, '2001:db8:1720::241')}` },
    ]);
    assert.deepEqual(await tagged('prefix-split.test', 'CN04_IPV6_DIFFERENT_PREFIX'), [{ ns_list: ns(3, '2001:db8:1730::240') }]);
    for (const family of [4, 6]) assert.deepEqual(await tagged('prefix-split.test', `CN04_IPV${family}_SINGLE_PREFIX`), []);
    assert.deepEqual(await tagged('prefix-split.test', 'IPV6_DIFFERENT_ASN'), [{ asn_list: '64502,64503' }]);
  });

  test('every server in a prefix of its own, or all in one', async () => {
    assert.deepEqual(await tagged('connectivity-different.test', 'CN04_IPV4_DIFFERENT_PREFIX'), [
      { ns_list: 'ns1.connectivity-different.test/198.51.100.90;ns2.connectivity-different.test/198.51.100.91' },
    ]);
    assert.deepEqual(await tagged('connectivity-different.test', 'CN04_IPV4_SAME_PREFIX'), []);
    assert.deepEqual(await tagged('connectivity-same.test', 'CN04_IPV4_SAME_PREFIX'), [
      { ip_prefix: '198.51.100.92/31', ns_list: 'ns1.connectivity-same.test/198.51.100.92;ns2.connectivity-same.test/198.51.100.93' },
    ]);
    assert.deepEqual(await tagged('connectivity-same.test', 'CN04_IPV4_SINGLE_PREFIX'), [{}]);
    const levels = (await ours(lab, 'connectivity-same.test', ...moduleArgs))
      .filter((f) => f.tag.startsWith('CN04_IPV4'))
      .map((f) => `${f.tag} ${f.level}`);
    assert.deepEqual(levels, ['CN04_IPV4_SAME_PREFIX NOTICE', 'CN04_IPV4_SINGLE_PREFIX WARNING']);
  });

  test('AS data that names a prefix not holding the address is a database error; data without fields an empty set', async () => {
    assert.deepEqual(await tagged('prefix-unknown.test', 'CN04_ERROR_PREFIX_DATABASE'), [{ ns_ip: '198.51.100.162' }]);
    assert.deepEqual(await tagged('prefix-unknown.test', 'CN04_EMPTY_PREFIX_SET'), [{ ns_ip: '198.51.100.163' }]);
    assert.deepEqual(await tagged('prefix-unknown.test', 'ERROR_ASN_DATABASE'), [{ ns_ip: '198.51.100.162' }]);
    assert.deepEqual(await tagged('prefix-unknown.test', 'EMPTY_ASN_SET'), [{ ns_ip: '198.51.100.163' }]);
    // The one server looked up is alone in its prefix, but the others' prefixes are unknown: no SINGLE_PREFIX.
    assert.deepEqual(await tagged('prefix-unknown.test', 'CN04_IPV4_DIFFERENT_PREFIX'), [
      { ns_list: 'ns3.prefix-unknown.test/198.51.100.164' },
    ]);
    assert.deepEqual(await tagged('prefix-unknown.test', 'CN04_IPV4_SINGLE_PREFIX'), []);
  });

  test('Connectivity agrees with zonemaster-cli 8.0.1 on every catalogue domain', async (t) => {
    const disagreements: string[] = [];
    for (const scenario of scenarios) {
      const domain = scenarioDomain(scenario);
      const want = keysOf(await reference(lab, domain, modules), modules);
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
