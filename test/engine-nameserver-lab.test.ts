// The engine's Nameserver, Connectivity and Address modules against real name servers in the lab
// (the nameserver-*, connectivity-* and address-* scenarios were written for them), and against the
// reference engine on the same lab: Nameserver against zonemaster-cli 8.0.1 / engine 9.0.1 (its runs
// recorded in test/reference-findings/), findings and their arguments (names without case, lists
// without order); Connectivity and Address against the reference they follow, by (test case, tag,
// level). Lives outside packages/ because it joins the lab and the engine.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, test } from 'node:test';
import { commandLineDomain, compareFindings, scenarioDomain, type Finding as LabFinding } from '@app/lab';
import { useLab } from '@app/lab/testing';
import { ours as oursWith, reference } from './support/lab-engines.ts';

const dnscheck = resolve(import.meta.dirname, '../packages/engine/bin/dnscheck.js');
const scenarios = [
  'nameserver-ok',
  'nameserver-quirks',
  'nameserver-edns-answers',
  'nameserver-aaaa',
  'connectivity-different-asn',
  'connectivity-same-asn',
  'connectivity-same-asn-v6',
  'connectivity-partial',
  'connectivity-wrong-zone',
  'address-mismatch',
  'address-noptr',
  'address-ptr-timeout',
  'root-zone',
  'nameserver-version',
  // Held-out mixes of server misbehaviours.
  'mix-edns-one-of-three',
  'mix-truncating',
  'mix-recursion-axfr-version',
  'mix-edns-versions-signed',
  'mix-truncate-tcp-silent',
];
const modules = ['NAMESERVER', 'CONNECTIVITY', 'ADDRESS'];
const moduleFlags = modules.flatMap((m) => ['--test', m.toLowerCase()]);

interface Finding {
  module: string;
  testcase: string;
  tag: string;
  level: string;
  args: Record<string, unknown>;
}

// quirks.test (misbehaving-servers) is run whole: what earlier modules found silent counts here.
const shared = await useLab([...scenarios, 'misbehaving-servers']);
const { skip } = shared;

async function findingsFrom(command: string, args: string[]): Promise<Finding[]> {
  const result = await shared.lab.exec(command, args, { timeoutMs: 180_000 });
  assert.ok(result.stdout.trim().startsWith('['), `${command} printed no JSON (exit ${result.code}): ${result.stderr.slice(-400)}`);
  return JSON.parse(result.stdout) as Finding[];
}

// One run per domain serves every test that reads it.
const runs = new Map<string, Promise<Finding[]>>();
function ours(domain: string): Promise<Finding[]> {
  if (!runs.has(domain))
    runs.set(
      domain,
      findingsFrom(process.execPath, [dnscheck, domain, '--hints', shared.lab.hintsPath, '--json', '--level', 'DEBUG', ...moduleFlags]),
    );
  return runs.get(domain)!;
}

/** The findings of one tag, as `{ args }` lists for deepEqual. */
async function tagged(domain: string, tag: string): Promise<Record<string, unknown>[]> {
  return (await ours(domain)).filter((f) => f.tag === tag && modules.includes(f.module)).map((f) => f.args);
}

// The reference's runs take most of the time and wait on the network more than on the CPU.
describe('Nameserver, Connectivity and Address in the lab', { skip, concurrency: 3 }, () => {
  test('well-behaved servers: the all-OK findings, nothing worse than INFO but the documentation addresses', async () => {
    const found = await ours('nameserver-ok.test');
    const tags = new Set(found.map((f) => f.tag));
    for (const tag of [
      'NO_RECURSOR',
      'EDNS0_SUPPORT',
      'AXFR_FAILURE',
      'SAME_SOURCE_IP',
      'AAAA_WELL_PROCESSED',
      'CAN_BE_RESOLVED',
      'NO_UPWARD_REFERRAL',
      'QNAME_CASE_SENSITIVE',
      'CASE_QUERIES_RESULTS_OK',
      'NAMESERVERS_IP_WITH_REVERSE',
      'NAMESERVER_IP_PTR_MATCH',
    ]) {
      assert.ok(tags.has(tag), `${tag} missing`);
    }
    // The lab's documentation ranges, one AS and one prefix per family, are not a fault of the servers.
    const documentation = ['A01_DOCUMENTATION_ADDR', 'A01_NO_GLOBALLY_REACHABLE_ADDR'];
    const worse = found.filter(
      (f) =>
        modules.includes(f.module) &&
        !['DEBUG', 'INFO'].includes(f.level) &&
        !documentation.includes(f.tag) &&
        !/_ONE_ASN$|^CN04_IPV[46]_(SAME|SINGLE)_PREFIX$/.test(f.tag),
    );
    assert.deepEqual(worse, []);
    assert.deepEqual(await tagged('nameserver-ok.test', 'NO_RECURSOR'), [
      { ns: 'ns1.nameserver-ok.test/198.51.100.62' },
      { ns: 'ns1.nameserver-ok.test/2001:db8:1700::62' },
      { ns: 'ns2.nameserver-ok.test/198.51.100.63' },
      { ns: 'ns2.nameserver-ok.test/2001:db8:1700::63' },
    ]);
  });

  test("documentation addresses are named, each server by name and address (9.0.1's A01_DOCUMENTATION_ADDR)", async () => {
    const [row] = await tagged('nameserver-ok.test', 'A01_DOCUMENTATION_ADDR');
    const listed = String(row?.ns_list).split(';');
    for (const server of ['ns1.nameserver-ok.test/198.51.100.62', 'ns1.nameserver-ok.test/2001:db8:1700::62'])
      assert.ok(listed.includes(server), `${server} in ${String(row?.ns_list)}`);
  });

  test('AS lookups come from the lab: one AS per family, different ASes, the same set of ASes', async () => {
    assert.deepEqual(await tagged('nameserver-ok.test', 'IPV4_ONE_ASN'), [{ asn: 64497 }]);
    assert.deepEqual(await tagged('nameserver-ok.test', 'IPV6_ONE_ASN'), [{ asn: 64499 }]);
    assert.deepEqual(await tagged('connectivity-different.test', 'IPV4_DIFFERENT_ASN'), [{ asn_list: '64510,64511' }]);
    assert.deepEqual(await tagged('connectivity-different.test', 'IPV6_DIFFERENT_ASN'), [{ asn_list: '64499,64501' }]);
    assert.deepEqual(await tagged('connectivity-same.test', 'IPV4_SAME_ASN'), [{ asn_list: '64512,64513' }]);
    assert.deepEqual(
      (await tagged('connectivity-different.test', 'ASN_INFOS_ANNOUNCE_IN')).find((r) => r.ns_ip === '2001:db8:1710::90'),
      { ns_ip: '2001:db8:1710::90', prefix: '2001:db8:1710::/44' },
    );
  });

  test('each quirky server is named by the test case that looks for its quirk', async () => {
    const domain = 'nameserver-quirks.test';
    const ns = (name: string, ip: string): string => `${name}.${domain}/${ip}`;
    assert.deepEqual(await tagged(domain, 'IS_A_RECURSOR'), [{ ns: ns('ns-recursor', '198.51.100.65') }]);
    assert.deepEqual(await tagged(domain, 'AXFR_AVAILABLE'), [{ ns: ns('ns-axfr', '198.51.100.66') }]);
    assert.deepEqual(
      (await tagged(domain, 'QNAME_CASE_INSENSITIVE')).map((a) => a.ns),
      [ns('ns-lowercase', '198.51.100.69')],
    );
    // The open recursor refers upwards too.
    assert.deepEqual(await tagged(domain, 'UPWARD_REFERRAL'), [
      { ns: ns('ns-recursor', '198.51.100.65') },
      { ns: ns('ns-upward', '198.51.100.77') },
    ]);
    assert.deepEqual(await tagged(domain, 'Z_FLAGS_NOTCLEAR'), [{ ns: ns('ns-echo-z', '198.51.100.75') }]);
    assert.deepEqual(
      (await ours(domain)).filter((f) => f.testcase === 'Nameserver02' && f.tag === 'NO_EDNS_SUPPORT').map((f) => f.args),
      [{ ns: ns('ns-ednsformerr', '198.51.100.76') }],
    );
    assert.deepEqual(await tagged(domain, 'N10_EDNS_RESPONSE_ERROR'), [{ ns_ip_list: '198.51.100.70' }]);
    assert.deepEqual(await tagged(domain, 'N10_UNEXPECTED_RCODE'), [{ rcode: 'NOERROR', ns_ip_list: '198.51.100.71' }]);
    assert.deepEqual(await tagged(domain, 'N10_NO_RESPONSE_EDNS1_QUERY'), [{ ns_ip_list: '198.51.100.72' }]);
    // It drops only EDNS version 1, so it answers Nameserver11's version 0 query (engine 9.0 takes
    // only an unanswered plain SOA query for silence; 4.6.2 no longer asked it).
    assert.deepEqual(await tagged(domain, 'N11_NO_RESPONSE'), []);
    assert.deepEqual(await tagged(domain, 'N11_RETURNS_UNKNOWN_OPTION_CODE'), [{ ns_ip_list: '198.51.100.73' }]);
    assert.deepEqual(await tagged(domain, 'N11_UNEXPECTED_RCODE'), [{ rcode: 'FORMERR', ns_ip_list: '198.51.100.74' }]);
    assert.deepEqual(await tagged(domain, 'CAN_NOT_BE_RESOLVED'), [{ nsname_list: 'ns.nowhere.nameserver-missing.test' }]);
  });

  test('EDNS answered wrongly: version 1, TC without OPT even over TCP, an unknown option spoiling the answer', async () => {
    const domain = 'nameserver-edns-answers.test';
    const ns = (name: string, ip: string): string => `${name}.${domain}/${ip}`;
    assert.deepEqual(await tagged(domain, 'EDNS_VERSION_ERROR'), [{ ns: ns('ns-version1', '203.0.113.193'), domain }]);
    assert.deepEqual(await tagged(domain, 'EDNS_RESPONSE_WITHOUT_EDNS'), [{ ns: ns('ns-truncate-always', '203.0.113.194'), domain }]);
    // Nameserver13's DNSKEY query with DO, over UDP without fallback: truncated, and without OPT.
    assert.deepEqual(await tagged(domain, 'MISSING_OPT_IN_TRUNCATED'), [{ ns: ns('ns-truncate-always', '203.0.113.194') }]);
    assert.deepEqual(await tagged(domain, 'N11_NO_EDNS'), [{ ns_ip_list: '203.0.113.189' }]);
    assert.deepEqual(await tagged(domain, 'N11_UNEXPECTED_ANSWER_SECTION'), [{ ns_ip_list: '203.0.113.190' }]);
    assert.deepEqual(await tagged(domain, 'N11_UNSET_AA'), [{ ns_ip_list: '203.0.113.191' }]);
  });

  test('AAAA: SERVFAIL, or dropped (the server still asked by the later Nameserver test cases)', async () => {
    const domain = 'nameserver-aaaa.test';
    const ns = (name: string, ip: string): string => `${name}.nameserver-aaaa-hosts.test/${ip}`;
    assert.deepEqual(await tagged(domain, 'AAAA_UNEXPECTED_RCODE'), [{ ns: ns('ns-aaaa-servfail', '203.0.113.197'), rcode: 'SERVFAIL' }]);
    assert.deepEqual(await tagged(domain, 'AAAA_QUERY_DROPPED'), [{ ns: ns('ns-aaaa-drop', '203.0.113.198') }]);
    // A dropped AAAA query is no silence to engine 9.0: its EDNS queries go out and are answered.
    assert.deepEqual(await tagged(domain, 'N10_NO_RESPONSE_EDNS1_QUERY'), []);
    assert.deepEqual(await tagged(domain, 'N11_NO_RESPONSE'), []);
    assert.deepEqual(
      (await ours(domain))
        .filter((f) => f.testcase === 'Nameserver15' && f.tag === 'N15_NO_VERSION_REVEALED')
        .map((f) => String(f.args.ns_list).split(';').length),
      [3],
    );
  });

  test('software versions: told by BIND, told in the wrong class, a query answered with SERVFAIL, or nothing told', async () => {
    const domain = 'nameserver-version.test';
    const ns = (n: number): string => `ns${n}.${domain}/192.0.2.${232 + n}`;
    const found = (await ours(domain))
      .filter((f) => f.testcase === 'Nameserver15' && f.level !== 'DEBUG')
      .map((f) => [f.tag, f.level, f.args]);
    assert.deepEqual(found, [
      ['N15_SOFTWARE_VERSION', 'NOTICE', { string: 'BIND 9.99.1-lab', query_name: 'version.bind', ns_list: ns(1) }],
      ['N15_SOFTWARE_VERSION', 'NOTICE', { string: 'lab-dns 1.0', query_name: 'version.bind', ns_list: ns(2) }],
      ['N15_SOFTWARE_VERSION', 'NOTICE', { string: 'lab-dns 1.0', query_name: 'version.server', ns_list: ns(2) }],
      ['N15_ERROR_ON_VERSION_QUERY', 'NOTICE', { query_name: 'version.bind', ns_list: ns(3) }],
      ['N15_ERROR_ON_VERSION_QUERY', 'NOTICE', { query_name: 'version.server', ns_list: ns(3) }],
      ['N15_NO_VERSION_REVEALED', 'INFO', { ns_list: `${ns(3)};${ns(4)}` }],
      ['N15_WRONG_CLASS', 'WARNING', { ns_list: `${ns(2)};${ns(2)}` }],
    ]);
  });

  test('Connectivity: one query type dropped on one transport, and SOA and NS answered for another zone', async () => {
    // Engine 9.0.1's Basic02 asks SOA only, so a whole run, like Connectivity alone, finds nothing over
    // UDP from a server that drops SOA there (CN01_NO_RESPONSE_UDP, as the reference says in both).
    const whole = await findingsFrom(process.execPath, [dnscheck, 'connectivity-partial.test', '--hints', shared.lab.hintsPath, '--json']);
    assert.deepEqual(
      whole.filter((f) => f.tag.startsWith('CN01_NO_RESPONSE')).map((f) => [f.tag, f.args]),
      [['CN01_NO_RESPONSE_UDP', { ns: 'ns-soa-udp.connectivity-partial.test/203.0.113.201' }]],
    );
    const connectivityAlone = await findingsFrom(process.execPath, [
      dnscheck,
      'connectivity-partial.test',
      '--hints',
      shared.lab.hintsPath,
      '--json',
      '--test',
      'connectivity',
    ]);
    assert.deepEqual(
      connectivityAlone.filter((f) => f.tag === 'CN01_NO_RESPONSE_UDP').map((f) => f.args),
      [{ ns: 'ns-soa-udp.connectivity-partial.test/203.0.113.201' }],
    );
    assert.deepEqual(await tagged('connectivity-partial.test', 'CN02_NO_RESPONSE_NS_QUERY_TCP'), [
      { ns: 'ns-ns-tcp.connectivity-partial.test/203.0.113.202' },
    ]);
    const wrong = {
      ns: 'ns2.connectivity-wrong-zone.test/203.0.113.205',
      domain_found: 'connectivity-elsewhere.test.',
      domain_expected: 'connectivity-wrong-zone.test.',
    };
    for (const tag of ['CN01_WRONG_SOA_RECORD_UDP', 'CN01_WRONG_NS_RECORD_UDP', 'CN02_WRONG_SOA_RECORD_TCP', 'CN02_WRONG_NS_RECORD_TCP']) {
      assert.deepEqual(await tagged('connectivity-wrong-zone.test', tag), [wrong], tag);
    }
    assert.deepEqual(await tagged('connectivity-same-v6.test', 'IPV6_SAME_ASN'), [{ asn_list: '64512,64513' }]);
  });

  test('a PTR lookup that times out, and the root zone (no upward referral test)', async () => {
    assert.deepEqual(await tagged('address-ptr-timeout.test', 'NO_RESPONSE_PTR_QUERY'), [{ domain: '207.113.0.203.in-addr.arpa.' }]);
    assert.deepEqual(await tagged('.', 'UPWARD_REFERRAL_IRRELEVANT'), [{}]);
  });

  test('a whole run: a server that drops AAAA, silent only to its AAAA queries, is still asked by Nameserver02 and 05', async () => {
    const found = await findingsFrom(process.execPath, [
      dnscheck,
      'quirks.test',
      '--hints',
      shared.lab.hintsPath,
      '--json',
      '--level',
      'DEBUG',
    ]);
    const of = (testcase: string, ns: string): string[] =>
      found.filter((f) => f.testcase === testcase && f.args.ns === ns).map((f) => f.tag);
    const dropsAaaa = 'ns-drop-aaaa.quirks.test/192.0.2.103';
    // Consistency05 (engine 9.0) no longer reports a server that does not answer; Consistency01 shows it answered SOA over UDP.
    const serials = found.filter((f) => f.testcase === 'Consistency01' && f.tag === 'SOA_SERIAL').map((f) => String(f.args.ns_list));
    assert.ok(
      serials.some((list) => list.split(';').includes(dropsAaaa)),
      serials.join(' | '),
    );
    // Engine 9.0 takes only an unanswered plain SOA query for silence (4.6.2 took any).
    assert.deepEqual(of('Nameserver02', dropsAaaa), []);
    assert.deepEqual(of('Nameserver05', dropsAaaa), ['AAAA_QUERY_DROPPED']);
  });

  test('reverse DNS: a PTR naming another server, and an address without PTR that answers nothing', async () => {
    assert.deepEqual(await tagged('address-mismatch.test', 'NAMESERVER_IP_PTR_MISMATCH'), [
      { nsname: 'ns2.address-mismatch.test', ns_ip: '198.51.100.80', names: 'ns1.address-mismatch.test.' },
    ]);
    assert.deepEqual(await tagged('address-noptr.test', 'NAMESERVER_IP_WITHOUT_REVERSE'), [
      { nsname: 'ns2.address-noptr.test', ns_ip: '198.51.100.82' },
    ]);
    // Address03 runs only when Address02 found every PTR.
    assert.deepEqual(
      (await ours('address-noptr.test')).filter((f) => f.testcase === 'Address03'),
      [],
    );
    assert.deepEqual(await tagged('address-noptr.test', 'CN01_NO_RESPONSE_UDP'), [{ ns: 'ns2.address-noptr.test/198.51.100.82' }]);
    assert.deepEqual(await tagged('address-noptr.test', 'CN02_NO_RESPONSE_TCP'), [{ ns: 'ns2.address-noptr.test/198.51.100.82' }]);
  });

  const levelsFromInfo = ['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'];
  // Connectivity and Address follow 9.0.1 and are compared with it in engine-connectivity-lab and
  // engine-basic-lab; here only Nameserver is.
  const nameserverOnly = (found: { module: string; level: string }[]): LabFinding[] =>
    found.filter((f) => f.module.toUpperCase() === 'NAMESERVER' && levelsFromInfo.includes(f.level)) as LabFinding[];

  for (const scenario of scenarios) {
    test(`${scenario}: the same Nameserver findings as zonemaster-cli 9.0.1, arguments included`, async () => {
      const domain = commandLineDomain(scenarioDomain(scenario));
      const [theirs, mine] = await Promise.all([
        reference(shared.lab, domain, ['nameserver']),
        oursWith(shared.lab, domain, '--test', 'nameserver'),
      ]);
      const comparison = compareFindings(nameserverOnly(theirs), nameserverOnly(mine));
      assert.deepEqual({ missing: comparison.missing, extra: comparison.extra }, { missing: [], extra: [] }, 'by test case, tag and level');
      assert.deepEqual(
        { missing: comparison.arguments.missing, extra: comparison.arguments.extra },
        { missing: [], extra: [] },
        'with arguments',
      );
    });
  }
});
