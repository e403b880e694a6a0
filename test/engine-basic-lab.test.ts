// The engine's Basic module against real name servers in the lab, and against the reference engine
// (Debian's zonemaster-cli) on the same lab: the Basic findings must agree, arguments included.
// Lives outside packages/ because it joins two packages (lab and engine) that must not import each other.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { keysOf, ours, reference, scenariosWithDomains, strip, type Finding } from './support/lab-engines.ts';

const probe = resolve(import.meta.dirname, 'engine-resolver-probe.ts');
const basicKeys = (findings: Finding[]): string[] => keysOf(findings, ['BASIC'], true);

const skipReason = await labUnavailableReason();
// The catalogue (with the basic-* scenarios written for this module) and the resolver's own scenario.
const scenarios = scenariosWithDomains(resolve(import.meta.dirname, 'scenarios/resolver-cnames.yaml'));

describe('Basic in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  before(async () => {
    lab = await startLab(scenarios);
  });
  after(async () => {
    await lab?.stop();
  });

  test('a healthy zone has a parent and working name servers, and the run goes on', async () => {
    const findings = await ours(lab, 'healthy.test');
    const tags = findings.map((f) => `${f.tag}:${f.level}`);
    assert.ok(tags.includes('HAS_PARENT:INFO'), tags.join(' '));
    assert.ok(findings.some((f) => f.tag === 'HAS_PARENT' && f.args.pname === 'test' && f.args.zone === 'healthy.test'));
    assert.ok(tags.includes('HAS_NAMESERVERS:INFO'));
    assert.ok(tags.includes('HAS_NAMESERVER_NO_WWW_A_TEST:INFO'));
    assert.ok(!tags.includes('CANNOT_CONTINUE:CRITICAL'));
  });

  test('a domain the parent does not delegate stops the run with CRITICAL', async () => {
    const findings = await ours(lab, 'missing.test');
    assert.ok(findings.some((f) => f.tag === 'NO_GLUE_PREVENTS_NAMESERVER_TESTS' && f.level === 'CRITICAL' && f.testcase === 'Basic02'));
    assert.ok(findings.some((f) => f.module === 'SYSTEM' && f.tag === 'CANNOT_CONTINUE' && f.level === 'CRITICAL' && f.args.domain === 'missing.test'));
  });

  test('a lame server is reported with its RCODE while the working one carries the zone', async () => {
    const findings = await ours(lab, 'lame.test', '--test', 'Basic');
    const failed = findings.filter((f) => f.tag === 'NS_FAILED');
    assert.ok(failed.length > 0 && failed.every((f) => f.level === 'ERROR' && f.args.rcode === 'REFUSED' && String(f.args.ns).startsWith('ns2.lame.test/')), JSON.stringify(failed));
    assert.ok(findings.some((f) => f.tag === 'HAS_NAMESERVERS' && String(f.args.ns).startsWith('ns1.lame.test/')));
  });

  test('a server that drops NS queries gives NS_NO_RESPONSE, and Basic03 then gets no answer at all', async () => {
    const findings = await ours(lab, 'silent.test', '--test', 'Basic');
    assert.ok(findings.some((f) => f.tag === 'NS_NO_RESPONSE' && f.args.ns === 'ns1.silent.test/192.0.2.170'));
    assert.ok(findings.some((f) => f.tag === 'TEST_CASE_START' && f.testcase === 'Basic03'));
    assert.ok(findings.some((f) => f.tag === 'A_QUERY_NO_RESPONSES' && f.level === 'INFO'));
  });

  test('with no working name server Basic03 asks for www and reports the A records found', async () => {
    const findings = await ours(lab, 'deadns.test', '--test', 'Basic');
    assert.ok(findings.some((f) => f.tag === 'NS_FAILED' && f.args.ns === 'ns.deadns-host.test/192.0.2.161' && f.args.rcode === 'REFUSED'));
    assert.ok(findings.some((f) => f.tag === 'HAS_A_RECORDS' && f.level === 'ERROR' && f.args.domain === 'www.deadns.test'));
  });

  test('with IPv4 turned off, IPv4 servers are not asked and the run says why', async () => {
    const findings = await ours(lab, 'healthy.test', '--no-ipv4', '--test', 'Basic');
    assert.ok(findings.some((f) => f.tag === 'IPV4_DISABLED' && f.args.rrtype === 'NS'));
    assert.ok(!findings.some((f) => f.tag === 'HAS_NAMESERVERS' && /\/\d+\.\d+\.\d+\.\d+$/.test(String(f.args.ns))));
  });

  test('a profile sets the transport and the levels', async () => {
    const profile = join(await mkdtemp(join(tmpdir(), 'dnscheck-profile-')), 'tcp-only.json');
    await writeFile(profile, JSON.stringify({ resolver: { defaults: { usevc: true } }, test_levels: { BASIC: { NS_NO_RESPONSE: 'WARNING', HAS_NAMESERVERS: 'NOTICE' } } }));
    const findings = await ours(lab, 'notcp.test', '--profile', profile, '--test', 'Basic');
    const silent = findings.filter((f) => f.tag === 'NS_NO_RESPONSE').map((f) => `${String(f.args.ns)} ${f.level}`);
    assert.deepEqual(silent.sort(), ['ns2.notcp.test/2001:db8:90::2 WARNING', 'ns2.notcp.test/203.0.113.90 WARNING']);
    assert.ok(findings.some((f) => f.tag === 'HAS_NAMESERVERS' && f.level === 'NOTICE' && String(f.args.ns).startsWith('ns1.notcp.test/')));
    assert.ok(findings.some((f) => f.tag === 'HAS_PARENT' && f.level === 'DEBUG'), 'test_levels replaces the whole table');
  });

  test('an undelegated test uses the given name servers, resolving those outside the zone', async () => {
    const findings = await ours(lab, 'predelegated.test', '--ns', 'ns1.predelegated.test/192.0.2.175', '--ns', 'ns.predelegated-host.test');
    const servers = findings.filter((f) => f.tag === 'HAS_NAMESERVERS').map((f) => f.args.ns);
    assert.deepEqual(servers.sort(), ['ns.predelegated-host.test/192.0.2.176', 'ns1.predelegated.test/192.0.2.175']);
    assert.ok(findings.some((f) => f.tag === 'HAS_PARENT' && f.args.pname === 'test'));
    assert.ok(!findings.some((f) => f.tag === 'CANNOT_CONTINUE'));
    const delegated = await ours(lab, 'predelegated.test');
    assert.ok(delegated.some((f) => f.tag === 'NO_GLUE_PREVENTS_NAMESERVER_TESTS'), 'without --ns the parent has no delegation');
  });

  test('an undelegated name server inside the zone needs an address', async () => {
    const findings = await ours(lab, 'predelegated.test', '--ns', 'ns1.predelegated.test');
    assert.ok(findings.some((f) => f.module === 'SYSTEM' && f.tag === 'FAKE_DELEGATION_IN_ZONE_NO_IP' && f.level === 'ERROR' && f.args.nsname === 'ns1.predelegated.test'));
    assert.ok(findings.some((f) => f.tag === 'CANNOT_CONTINUE'));
  });

  test('the resolver finds host addresses and the delegation with DS at the parent', async () => {
    const run = async (method: string, name: string): Promise<unknown> => {
      const result = await lab.exec(process.execPath, [probe, lab.hintsPath, method, name], { timeoutMs: 60_000 });
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout);
    };
    assert.deepEqual(await run('hostAddresses', 'ns1.lame.test'), { ipv4: ['192.0.2.20'], ipv6: ['2001:db8:20::1'] });
    assert.deepEqual(await run('hostAddresses', 'nothing.lame.test'), { ipv4: [], ipv6: [] });
    const parent = (await run('parentData', 'healthy.test')) as { ns_list: { ns: string; ip: string }[]; ds_list: { keytag: number; algorithm: number; digtype: number; digest: string }[] };
    assert.deepEqual(parent.ns_list.map((n) => `${n.ns} ${n.ip}`).sort(), [
      'ns1.healthy.test 192.0.2.10',
      'ns1.healthy.test 2001:db8:10::1',
      'ns2.healthy.test 203.0.113.10',
      'ns2.healthy.test 2001:db8:10::2',
    ].sort());
    assert.equal(parent.ds_list.length, 1);
    assert.deepEqual({ algorithm: parent.ds_list[0]?.algorithm, digtype: parent.ds_list[0]?.digtype }, { algorithm: 13, digtype: 2 });
    assert.match(parent.ds_list[0]?.digest ?? '', /^[0-9a-f]{64}$/);
    assert.deepEqual(await run('parentData', 'missing.test'), { ns_list: [], ds_list: [] });
    assert.deepEqual(await run('hostAddresses', 'alias.cnames.test'), { ipv4: ['192.0.2.99'], ipv6: ['2001:db8::99'] }, 'a CNAME into another zone is followed');
    assert.deepEqual(await run('hostAddresses', 'loop1.cnames.test'), { ipv4: [], ipv6: [] }, 'a CNAME loop ends');
  });

  test('undelegated Basic findings agree with zonemaster-cli', async () => {
    const args = ['--ns', 'ns1.predelegated.test/192.0.2.175', '--ns', 'ns.predelegated-host.test/192.0.2.176'];
    assert.deepEqual(basicKeys(await ours(lab, 'predelegated.test', ...args, '--test', 'Basic')), basicKeys(await reference(lab, 'predelegated.test', ['basic'], ...args)));
  });

  test('the Basic findings agree with zonemaster-cli on every catalogue domain', async (t) => {
    const disagreements: string[] = [];
    for (const scenario of scenarios) {
      const domain = scenarioDomain(scenario);
      // One engine at a time: the machine's two cores are shared with the rest of the suite.
      const theirs = await reference(lab, domain, ['basic']);
      const mine = await ours(lab, domain, '--test', 'Basic');
      const want = basicKeys(theirs);
      const got = basicKeys(mine);
      const missing = want.filter((k) => !got.includes(k));
      const extra = got.filter((k) => !want.includes(k));
      t.diagnostic(`${basename(scenario)}: ${want.length - missing.length}/${want.length} agree${extra.length ? `, ${extra.length} extra` : ''}`);
      if (missing.length || extra.length) disagreements.push(`${scenario} (${strip(domain)}):\n  missing ${missing.join('\n  missing ')}\n  extra ${extra.join('\n  extra ')}`);
    }
    assert.deepEqual(disagreements, []);
  });
});
