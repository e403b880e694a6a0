// The engine's DNSSEC module against zones signed by BIND's own tools in the lab, and against the
// reference engine (zonemaster-cli 8.0.1 / engine 9.0.1, as recorded in test/reference-findings/) on
// the same lab: every DNSSEC finding at INFO and above must agree, arguments included. Lives outside
// packages/ because it joins the lab and the engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { catalogueNames, labUnavailableReason, scenarioDomain, startLab, type Lab } from '@app/lab';
import { ours as oursRun, reference as referenceRun, type Finding } from './support/lab-engines.ts';

// Each engine runs once per domain; the tests share the runs (ours() keeps its own).
const referenceRuns = new Map<string, Promise<Finding[]>>();
const ours = (lab: Lab, domain: string): Promise<Finding[]> => oursRun(lab, domain, '--test', 'DNSSEC');
function reference(lab: Lab, domain: string): Promise<Finding[]> {
  if (!referenceRuns.has(domain)) referenceRuns.set(domain, referenceRun(lab, domain, ['dnssec']));
  return referenceRuns.get(domain)!;
}

const levelsFromInfo = ['INFO', 'NOTICE', 'WARNING', 'ERROR', 'CRITICAL'];
// Times depend on when the lab signed its zones and the second each engine asked in: compared by presence.
const clockDependent = new Set(['duration', 'date', 'expiration', 'inception']);
/** DNSSEC findings at INFO or above, as strings: test case, tag, level, arguments. */
function dnssecKeys(findings: Finding[]): string[] {
  const keys = findings
    .filter((f) => f.module.toUpperCase() === 'DNSSEC' && levelsFromInfo.includes(f.level))
    .map((f) => {
      const args = Object.entries(f.args).map(([k, v]) => [k, clockDependent.has(k) ? '<time>' : String(v)]);
      return `${f.testcase.toUpperCase()} ${f.tag} ${f.level} ${JSON.stringify(Object.fromEntries(args.sort()))}`;
    });
  return [...new Set(keys)].sort();
}

const find = (findings: Finding[], tag: string): Finding | undefined => findings.find((f) => f.tag === tag);
const above = (findings: Finding[], prefix: string): string[] =>
  findings.filter((f) => f.tag.startsWith(prefix) && !['DEBUG', 'INFO'].includes(f.level)).map((f) => f.tag);

const skipReason = await labUnavailableReason();
// The mix-* scenarios are the held-out lab: features of the others combined anew.
const scenarios = catalogueNames().filter(
  (name) => /^(?:dnssec|mix)-/.test(name) || ['healthy-signed', 'wrong-ds', 'expired-signatures'].includes(name),
);

describe('DNSSEC in the lab', { skip: skipReason ?? false }, () => {
  let lab: Lab;
  before(async () => {
    lab = await startLab(scenarios);
  });
  after(async () => {
    await lab?.stop();
  });

  test('an unsigned zone is DS07_NOT_SIGNED (a warning), and nothing but DNSSEC07 and DNSSEC11 runs', async () => {
    const findings = await ours(lab, 'dnssec-unsigned.test');
    const signed = find(findings, 'DS07_NOT_SIGNED');
    assert.deepEqual([signed?.testcase, signed?.level], ['DNSSEC07', 'WARNING']);
    assert.equal(
      find(findings, 'DS07_NOT_SIGNED_ON_SERVER')?.args.ns_list,
      'ns1.dnssec-unsigned.test/198.51.100.156;ns1.dnssec-unsigned.test/2001:db8:1800::13:1;ns2.dnssec-unsigned.test/198.51.100.157',
    );
    assert.equal(find(findings, 'NOT_SIGNED'), undefined);
    assert.deepEqual([...new Set(findings.filter((f) => f.tag === 'TEST_CASE_START').map((f) => f.testcase))].sort(), [
      'DNSSEC07',
      'DNSSEC11',
    ]);
  });

  test('a zone per algorithm: DS05_ALGO_OK for 8, 13, 14, 15, 16; DS05_ALGO_DEPRECATED (an error) for 5 and 7; signed on every server', async () => {
    const expected: [string, number, string][] = [
      ['dnssec-alg8.test', 8, 'DS05_ALGO_OK'],
      ['healthy.test', 13, 'DS05_ALGO_OK'],
      ['dnssec-alg14.test', 14, 'DS05_ALGO_OK'],
      ['dnssec-alg15.test', 15, 'DS05_ALGO_OK'],
      ['dnssec-alg16.test', 16, 'DS05_ALGO_OK'],
      ['dnssec-alg5.test', 5, 'DS05_ALGO_DEPRECATED'],
      ['dnssec-alg7.test', 7, 'DS05_ALGO_DEPRECATED'],
    ];
    for (const [domain, algo, tag] of expected) {
      const findings = await ours(lab, domain);
      const found = findings.find((f) => f.tag === tag && f.args.algo_num === algo);
      assert.ok(found, `${domain}: ${tag} for ${algo}`);
      assert.equal(found.level, algo === 5 || algo === 7 ? 'ERROR' : 'INFO', domain);
      assert.ok(String(found.args.ns_list).startsWith('ns1.'), domain);
      assert.deepEqual(
        findings.filter((f) => (f.level === 'ERROR' || f.level === 'CRITICAL') && f.tag !== 'DS05_ALGO_DEPRECATED').map((f) => f.tag),
        [],
        domain,
      );
      assert.ok(find(findings, 'DS07_SIGNED'), domain);
    }
    const mnemonics = (await ours(lab, 'dnssec-alg7.test')).filter((f) => f.tag === 'DS05_ALGO_DEPRECATED').map((f) => f.args.algo_mnemo);
    assert.deepEqual([...new Set(mnemonics)], ['RSASHA1-NSEC3-SHA1']);
  });

  test('broken chains: DS to no key, SHA-1 only, DS to an unsigned zone, DNSKEY set signed by the ZSK only', async () => {
    const keytag = await ours(lab, 'dnssec-ds-keytag.test');
    assert.ok(find(keytag, 'DS02_NO_DNSKEY_FOR_DS') && find(keytag, 'DS02_NO_VALID_DNSKEY_FOR_ANY_DS'));
    const sha1 = await ours(lab, 'dnssec-ds-sha1.test');
    const deprecated = find(sha1, 'DS01_DS_ALGO_DEPRECATED');
    assert.deepEqual([deprecated?.args.ds_algo_num, deprecated?.args.ds_algo_descr, deprecated?.level], [1, 'SHA-1', 'ERROR']);
    assert.equal(find(sha1, 'DS01_DS_ALGO_2_MISSING')?.args.keytag, deprecated?.args.keytag);
    const unsigned = await ours(lab, 'dnssec-ds-unsigned.test');
    assert.ok(find(unsigned, 'DS07_NOT_SIGNED') && find(unsigned, 'DS11_DS_BUT_UNSIGNED_ZONE'));
    const zskOnly = find(await ours(lab, 'dnssec-zsk-only.test'), 'DS02_DNSKEY_NOT_SIGNED_BY_ANY_DS');
    assert.equal(zskOnly?.args.ns_ip_list, '198.51.100.140;198.51.100.141;2001:db8:1800::b:1');
  });

  test('signatures out of their window; NSEC3 with 150 iterations and a salt; a small RSA key', async () => {
    assert.ok(find(await ours(lab, 'dnssec-not-yet-valid.test'), 'DS09_SOA_RRSIG_NOT_YET_VALID'));
    const expired = await ours(lab, 'expired.test');
    assert.ok(
      find(expired, 'RRSIG_EXPIRED') && find(expired, 'DS10_NSEC_RRSIG_EXPIRED') && find(expired, 'DS10_NSEC_NO_VERIFIED_SIGNATURE'),
    );
    const nsec3 = await ours(lab, 'dnssec-nsec3-iterations.test');
    assert.deepEqual(
      ['DS03_ILLEGAL_ITERATION_VALUE', 'DS03_ILLEGAL_SALT_LENGTH'].map((tag) => [find(nsec3, tag)?.level, find(nsec3, tag)?.args.int]),
      [
        ['WARNING', 150],
        ['WARNING', 6],
      ],
    );
    const small = find(await ours(lab, 'dnssec-rsa1024.test'), 'DNSKEY_SMALLER_THAN_REC');
    assert.deepEqual([small?.args.keysize, small?.args.keysizerec], [1024, 2048]);
  });

  test('CDS/CDNSKEY: present and consistent, mismatched, and the algorithm-0 delete request', async () => {
    const correct = await ours(lab, 'dnssec-cds.test');
    assert.ok(
      find(correct, 'DS15_HAS_CDS_AND_CDNSKEY') &&
        !correct.some((f) => /^DS1[5-8]_/.test(f.tag) && f.level !== 'INFO' && f.level !== 'DEBUG'),
    );
    const mismatch = await ours(lab, 'dnssec-cds-mismatch.test');
    assert.ok(find(mismatch, 'DS15_MISMATCH_CDS_CDNSKEY') && find(mismatch, 'DS17_CDNSKEY_MATCHES_NO_DNSKEY'));
    const deletion = await ours(lab, 'dnssec-cds-delete.test');
    assert.ok(find(deletion, 'DS16_DELETE_CDS') && find(deletion, 'DS17_DELETE_CDNSKEY'));
  });

  test('no DS at the parent (DS01_PARENT_ZONE_NO_DS), an unsigned parent (no signed DS), and signature windows: 400 days long, or 6 hours left', async () => {
    const noDs = find(await ours(lab, 'dnssec-no-ds.test'), 'DS01_PARENT_ZONE_NO_DS');
    assert.deepEqual(
      [noDs?.level, noDs?.args.ns_list],
      ['NOTICE', 'ns1.nic.test/198.51.100.11;ns1.nic.test/2001:db8:100::11;ns2.nic.test/198.51.100.12;ns2.nic.test/2001:db8:100::12'],
    );
    // The lab's parent zone is not signed: 9.0's DNSSEC07 counts only a signed DS.
    const healthy = await ours(lab, 'healthy.test');
    assert.ok(
      find(healthy, 'DS01_DS_ALGO_OK') && find(healthy, 'DS07_NO_DS_FOR_SIGNED_ZONE') && find(healthy, 'DS07_NO_DS_ON_PARENT_SERVER'),
    );
    const long = await ours(lab, 'dnssec-long-validity.test');
    assert.ok(find(long, 'REMAINING_LONG') && (find(long, 'DURATION_LONG')?.args.duration as number) > 399 * 86400);
    const short = find(await ours(lab, 'dnssec-expiring.test'), 'REMAINING_SHORT');
    assert.ok((short?.args.duration as number) > 0 && (short?.args.duration as number) <= 6 * 3600);
  });

  test("DS to a key that is no SEP or no zone key; DS digest types by 9.0's table; two algorithms, one signing nothing", async () => {
    assert.ok(find(await ours(lab, 'dnssec-ds-zsk.test'), 'DS02_DNSKEY_NOT_SEP'));
    assert.ok(find(await ours(lab, 'dnssec-csk-no-sep.test'), 'DS02_DNSKEY_NOT_SEP'));
    assert.ok(find(await ours(lab, 'dnssec-ds-non-zone-key.test'), 'DS02_DNSKEY_NOT_FOR_ZONE_SIGNING'));
    const digests = await ours(lab, 'dnssec-ds-digests.test');
    const digest = (tag: string): [unknown, unknown][] =>
      digests.filter((f) => f.tag === tag).map((f) => [f.args.ds_algo_num, f.args.ds_algo_descr]);
    assert.deepEqual(digest('DS01_DS_ALGO_NOT_DS'), [[0, 'Reserved']]);
    assert.deepEqual(digest('DS01_DS_ALGO_DEPRECATED'), [[3, 'GOST R 34.11-94']]);
    assert.deepEqual(digest('DS01_DS_ALGO_OK').sort(), [
      [2, 'SHA-256'],
      [5, 'GOST R 34.11-2012'],
    ]);
    const twoAlgorithms = await ours(lab, 'dnssec-algo-not-signing.test');
    assert.deepEqual(
      ['DS13_ALGO_NOT_SIGNED_DNSKEY', 'DS13_ALGO_NOT_SIGNED_SOA', 'DS13_ALGO_NOT_SIGNED_NS'].map(
        (tag) => find(twoAlgorithms, tag)?.args.algo_num,
      ),
      [15, 15, 15],
    );
  });

  test('DNSKEYs of private, deprecated, reserved, unassigned and non-zone-signing algorithms; RSA keys too small and too large', async () => {
    assert.equal(find(await ours(lab, 'dnssec-algo-private.test'), 'DS05_ALGO_PRIVATE')?.args.algo_num, 253);
    assert.equal(find(await ours(lab, 'dnssec-algo-deprecated.test'), 'DS05_ALGO_DEPRECATED')?.args.algo_num, 3);
    const reserved = await ours(lab, 'dnssec-algo-reserved.test');
    const algo = (tag: string): [unknown, unknown] => [find(reserved, tag)?.args.algo_num, find(reserved, tag)?.args.algo_mnemo];
    assert.deepEqual(['DS05_ALGO_RESERVED', 'DS05_ALGO_UNASSIGNED', 'DS05_ALGO_NOT_ZONE_SIGN'].map(algo), [
      [4, 'RESERVED'],
      [100, 'UNASSIGNED'],
      [252, 'INDIRECT'],
    ]);
    const sizes = await ours(lab, 'dnssec-rsa-key-sizes.test');
    assert.deepEqual(
      [find(sizes, 'DNSKEY_TOO_SMALL_FOR_ALGO')?.args.keysize, find(sizes, 'DNSKEY_TOO_LARGE_FOR_ALGO')?.args.keysize],
      [256, 4104],
    );
  });

  test('signatures missing, bogus or by a key no longer published; servers that disagree on signing, denial, CDS or the DS', async () => {
    const apex = await ours(lab, 'dnssec-unsigned-apex.test');
    assert.ok(find(apex, 'DS07_NOT_SIGNED') && find(apex, 'DS07_NOT_SIGNED_ON_SERVER'));
    const bogus = await ours(lab, 'dnssec-bogus-signatures.test');
    for (const tag of [
      'DS08_RRSIG_NOT_VALID_BY_DNSKEY',
      'DS09_RRSIG_NOT_VALID_BY_DNSKEY',
      'DS10_NSEC3_RRSIG_VERIFY_ERROR',
      'DS10_NSEC3_NO_VERIFIED_SIGNATURE',
      'DS16_CDS_INVALID_RRSIG',
      'DS17_CDNSKEY_INVALID_RRSIG',
    ])
      assert.ok(find(bogus, tag), tag);
    const stale = await ours(lab, 'dnssec-stale-signatures.test');
    for (const tag of [
      'DS08_NO_MATCHING_DNSKEY',
      'DS09_NO_MATCHING_DNSKEY',
      'DS16_CDS_SIGNED_BY_UNKNOWN_DNSKEY',
      'DS17_CDNSKEY_SIGNED_BY_UNKNOWN_DNSKEY',
    ])
      assert.ok(find(stale, tag), tag);
    const partly = await ours(lab, 'dnssec-partly-signed.test');
    assert.deepEqual(
      [find(partly, 'DS11_INCONSISTENT_SIGNED_ZONE')?.level, find(partly, 'DS11_NS_WITH_UNSIGNED_ZONE')?.args.ns_ip_list],
      ['ERROR', '203.0.113.153'],
    );
    assert.deepEqual(
      ['DS07_INCONSISTENT_SIGNED', 'DS05_SERVER_NO_DNSSEC'].map((tag) => find(partly, tag)?.level),
      ['ERROR', 'ERROR'],
    );
    assert.equal(find(partly, 'DS07_NOT_SIGNED_ON_SERVER')?.args.ns_list, 'ns2.dnssec-partly-signed.test/203.0.113.153');
    const denial = find(await ours(lab, 'dnssec-nsec-nsec3.test'), 'DS10_INCONSISTENT_NSEC_NSEC3');
    assert.equal(
      denial?.args.ns_list,
      'ns1.dnssec-nsec-nsec3.test/203.0.113.154;ns1.dnssec-nsec-nsec3.test/2001:db8:1800::26:1;ns2.dnssec-nsec-nsec3.test/203.0.113.155',
    );
    const cds = await ours(lab, 'dnssec-cds-inconsistent.test');
    assert.ok(find(cds, 'DS15_INCONSISTENT_CDS') && find(cds, 'DS15_INCONSISTENT_CDNSKEY'));
    const servfail = await ours(lab, 'dnssec-dnskey-servfail.test');
    assert.ok(
      find(servfail, 'DS11_UNDETERMINED_SIGNED_ZONE') &&
        find(servfail, 'DS07_NON_AUTH_RESPONSE_DNSKEY') &&
        find(servfail, 'DS07_NOT_SIGNED'),
    );
    const split = await ours(lab, 'child.dnssec-ds-split.test');
    assert.deepEqual(
      ['DS11_INCONSISTENT_DS', 'DS11_PARENT_WITH_DS', 'DS11_PARENT_WITHOUT_DS'].map((tag) => find(split, tag)?.level),
      ['WARNING', 'NOTICE', 'NOTICE'],
    );
    assert.deepEqual(
      [find(split, 'DS11_PARENT_WITH_DS')?.args.ns_ip_list, find(split, 'DS11_PARENT_WITHOUT_DS')?.args.ns_ip_list],
      ['203.0.113.184', '203.0.113.185'],
    );
    assert.equal(find(split, 'DS01_PARENT_SERVER_NO_DS')?.args.ns_list, 'ns2.dnssec-ds-split.test/203.0.113.185');
  });

  test("denial at the apex: unsigned NSEC or NSEC3, no denial at all; faults below the apex are not DNSSEC10's any more", async () => {
    assert.ok(find(await ours(lab, 'dnssec-nsec-unsigned.test'), 'DS10_NSEC_MISSING_SIGNATURE'));
    assert.ok(find(await ours(lab, 'dnssec-nsec3-unsigned.test'), 'DS10_NSEC3_MISSING_SIGNATURE'));
    const stripped = find(await ours(lab, 'dnssec-denial-stripped.test'), 'DS10_EXPECTED_NSEC_NSEC3_MISSING');
    assert.deepEqual(
      [stripped?.level, stripped?.args.ns_list],
      [
        'ERROR',
        'ns1.dnssec-denial-stripped.test/2001:db8:1800::2c:1;ns1.dnssec-denial-stripped.test/203.0.113.166;ns2.dnssec-denial-stripped.test/203.0.113.167',
      ],
    );
    for (const domain of [
      'dnssec-nsec-gap.test',
      'dnssec-nsec-servfail.test',
      'dnssec-wildcard-unsigned.test',
      'dnssec-wildcard-bogus.test',
    ]) {
      const findings = await ours(lab, domain);
      assert.ok(find(findings, 'DS10_HAS_NSEC'), domain);
      assert.deepEqual(above(findings, 'DS10_'), [], domain);
    }
    assert.deepEqual(above(await ours(lab, 'dnssec-nsec3-gap.test'), 'DS10_'), []);
  });

  test('CDS/CDNSKEY: one without the other, for the ZSK, for an unpublished key, unsigned, signed by the ZSK only; beside no DNSKEY nothing runs', async () => {
    assert.ok(find(await ours(lab, 'dnssec-cds-only.test'), 'DS15_HAS_CDS_NO_CDNSKEY'));
    assert.ok(find(await ours(lab, 'dnssec-cdnskey-only.test'), 'DS15_HAS_CDNSKEY_NO_CDS'));
    const zsk = await ours(lab, 'dnssec-cds-zsk.test');
    for (const tag of [
      'DS16_CDS_MATCHES_NON_SEP_DNSKEY',
      'DS16_DNSKEY_NOT_SIGNED_BY_CDS',
      'DS17_CDNSKEY_IS_NON_SEP',
      'DS17_DNSKEY_NOT_SIGNED_BY_CDNSKEY',
    ])
      assert.ok(find(zsk, tag), tag);
    const unpublished = await ours(lab, 'dnssec-cds-unpublished.test');
    assert.ok(find(unpublished, 'DS16_CDS_MATCHES_NO_DNSKEY') && find(unpublished, 'DS17_CDNSKEY_MATCHES_NO_DNSKEY'));
    const unsigned = await ours(lab, 'dnssec-cds-unsigned.test');
    for (const tag of ['DS16_CDS_UNSIGNED', 'DS17_CDNSKEY_UNSIGNED', 'DS18_NO_MATCH_CDS_RRSIG_DS', 'DS18_NO_MATCH_CDNSKEY_RRSIG_DS'])
      assert.ok(find(unsigned, tag), tag);
    const zskSigned = await ours(lab, 'dnssec-cds-zsk-signed.test');
    for (const tag of ['DS16_CDS_NOT_SIGNED_BY_CDS', 'DS17_CDNSKEY_NOT_SIGNED_BY_CDNSKEY', 'DS18_NO_MATCH_CDS_RRSIG_DS'])
      assert.ok(find(zskSigned, tag), tag);
    const noKeys = await ours(lab, 'dnssec-dnskey-empty.test');
    assert.ok(find(noKeys, 'DS07_NOT_SIGNED') && find(noKeys, 'DS11_DS_BUT_UNSIGNED_ZONE'));
    assert.deepEqual(
      noKeys.filter((f) => /^DS1[5-8]_/.test(f.tag)),
      [],
    );
  });

  test('DS and DNSKEY go on over TCP when UDP answers are truncated, as the reference does', async () => {
    const findings = await ours(lab, 'dnssec-truncated.test');
    assert.equal(
      find(findings, 'DS10_HAS_NSEC')?.args.ns_list,
      'ns1.dnssec-truncated.test/198.51.100.158;ns1.dnssec-truncated.test/2001:db8:1800::14:1;ns2.dnssec-truncated.test/198.51.100.159',
    );
    assert.deepEqual(
      findings
        .filter((f) => f.tag === 'EXTRA_PROCESSING_OK')
        .map((f) => f.args.server)
        .sort(),
      ['198.51.100.158', '198.51.100.159', '2001:db8:1800::14:1'],
    );
  });

  test('NSEC3 parameters against RFC 9276: opt-out below and at a TLD, servers with different parameters', async () => {
    const levelOf = (findings: Finding[], tag: string): string | undefined => find(findings, tag)?.level;
    assert.equal(levelOf(await ours(lab, 'dnssec-nsec3-optout.test'), 'DS03_NSEC3_OPT_OUT_ENABLED_NON_TLD'), 'NOTICE');
    const tld = await ours(lab, 'nsec3-optout.');
    assert.deepEqual(
      [levelOf(tld, 'DS03_NSEC3_OPT_OUT_ENABLED_TLD'), find(tld, 'DS03_NSEC3_OPT_OUT_ENABLED_NON_TLD')],
      ['INFO', undefined],
    );
    const mixed = await ours(lab, 'dnssec-nsec3-inconsistent.test');
    assert.deepEqual(
      ['DS03_INCONSISTENT_ITERATION', 'DS03_INCONSISTENT_SALT_LENGTH', 'DS03_INCONSISTENT_NSEC3_FLAGS'].map((tag) => levelOf(mixed, tag)),
      ['ERROR', 'ERROR', 'ERROR'],
    );
    const ns2 = 'ns2.dnssec-nsec3-inconsistent.test/198.51.100.245';
    assert.deepEqual(
      ['DS03_ILLEGAL_ITERATION_VALUE', 'DS03_ILLEGAL_SALT_LENGTH'].map((tag) => [
        find(mixed, tag)?.args.int,
        find(mixed, tag)?.args.ns_list,
      ]),
      [
        [10, ns2],
        [8, ns2],
      ],
    );
    assert.equal(find(mixed, 'DS03_NSEC3_OPT_OUT_ENABLED_NON_TLD')?.args.ns_list, ns2);
    assert.equal(
      find(mixed, 'DS03_LEGAL_EMPTY_SALT')?.args.ns_list,
      'ns1.dnssec-nsec3-inconsistent.test/198.51.100.244;ns1.dnssec-nsec3-inconsistent.test/2001:db8:1800::f4:1',
    );
  });

  test("9.0's digest and algorithm tables: SHA-384 alone, SM3, unassigned, reserved and private digests; algorithms 6, 12, 17, 20, 23, 200 and RSA/SHA-512", async () => {
    const digests = await ours(lab, 'dnssec-ds-digest-table.test');
    const byDigest = (tag: string): unknown[] =>
      digests
        .filter((f) => f.tag === tag)
        .map((f) => f.args.ds_algo_num)
        .sort((a, b) => Number(a) - Number(b));
    assert.deepEqual(
      [
        byDigest('DS01_DS_ALGO_OK'),
        byDigest('DS01_DS_ALGO_UNASSIGNED'),
        byDigest('DS01_DS_ALGO_RESERVED'),
        byDigest('DS01_DS_ALGO_PRIVATE'),
      ],
      [[4, 6], [100, 255], [200], [253]],
    );
    assert.equal(digests.filter((f) => f.tag === 'DS01_DS_ALGO_2_MISSING').length, 2);
    const algorithms = await ours(lab, 'dnssec-algo-table.test');
    const byAlgorithm = (tag: string): unknown[] =>
      algorithms
        .filter((f) => f.tag === tag)
        .map((f) => `${String(f.args.algo_num)} ${String(f.args.algo_mnemo)}`)
        .sort();
    assert.deepEqual(byAlgorithm('DS05_ALGO_DEPRECATED'), ['12 ECC-GOST', '6 DSA-NSEC3-SHA1']);
    assert.deepEqual(byAlgorithm('DS05_ALGO_OK'), ['13 ECDSAP256SHA256', '13 ECDSAP256SHA256', '17 SM2SM3', '23 ECC-GOST12']);
    assert.deepEqual([byAlgorithm('DS05_ALGO_UNASSIGNED'), byAlgorithm('DS05_ALGO_RESERVED')], [['20 UNASSIGNED'], ['200 RESERVED']]);
    const sha512 = find(await ours(lab, 'dnssec-alg10.test'), 'DS05_ALGO_NOT_RECOMMENDED');
    assert.deepEqual([sha512?.level, sha512?.args.algo_mnemo], ['WARNING', 'RSASHA512']);
  });

  test("signatures over the apex's NSEC or NSEC3 record: not valid yet, bogus, by an unknown key; an unsigned SOA; a server without DNSKEY signatures", async () => {
    const tags = async (domain: string): Promise<string[]> =>
      (await ours(lab, domain)).filter((f) => !['DEBUG', 'INFO'].includes(f.level)).map((f) => `${f.tag} ${f.level}`);
    const notYet = await tags('dnssec-nsec3-not-yet-valid.test');
    for (const tag of [
      'DS10_NSEC3_RRSIG_NOT_YET_VALID ERROR',
      'DS10_NSEC3_NO_VERIFIED_SIGNATURE ERROR',
      'DS08_DNSKEY_RRSIG_NOT_YET_VALID ERROR',
    ])
      assert.ok(notYet.includes(tag), tag);
    assert.ok((await tags('dnssec-nsec-bogus.test')).includes('DS10_NSEC_RRSIG_VERIFY_ERROR ERROR'));
    assert.ok((await tags('dnssec-nsec-stale-keytag.test')).includes('DS10_NSEC_RRSIG_NO_DNSKEY WARNING'));
    assert.ok((await tags('dnssec-nsec3-stale-keytag.test')).includes('DS10_NSEC3_RRSIG_NO_DNSKEY WARNING'));
    assert.deepEqual(
      (await tags('dnssec-soa-unsigned.test')).filter((tag) => tag.startsWith('DS09')),
      ['DS09_MISSING_RRSIG_IN_RESPONSE ERROR'],
    );
    const split = await ours(lab, 'dnssec-dnskey-unsigned-server.test');
    assert.deepEqual(
      ['DS07_INCONSISTENT_SIGNED', 'DS08_MISSING_RRSIG_IN_RESPONSE'].map((tag) => find(split, tag)?.level),
      ['ERROR', 'ERROR'],
    );
    assert.equal(find(split, 'DS07_NOT_SIGNED_ON_SERVER')?.args.ns_list, 'ns2.dnssec-dnskey-unsigned-server.test/203.0.113.241');
  });

  test('undelegated tests and the root: DS given or not, name servers given or not, agree with zonemaster-cli', async () => {
    const ds256 = '13870,13,2,0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
    const runs: [string, string[]][] = [
      ['healthy.test', ['--ns', 'ns1.healthy.test/192.0.2.10', '--ns', 'ns2.healthy.test/203.0.113.10']],
      [
        'healthy.test',
        ['--ns', 'ns1.healthy.test/192.0.2.10', '--ds', ds256, '--ds', '13870,13,1,0123456789abcdef0123456789abcdef01234567'],
      ],
      [
        'dnssec-alg8.test',
        ['--ds', '36010,8,4,0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'],
      ],
      ['.', []],
    ];
    const mine: Finding[][] = [];
    for (const [domain, extra] of runs) {
      const [theirs, ourRun] = await Promise.all([
        referenceRun(lab, domain, ['dnssec'], ...extra),
        oursRun(lab, domain, '--test', 'DNSSEC', ...extra),
      ]);
      assert.deepEqual(dnssecKeys(ourRun), dnssecKeys(theirs), `${domain} ${extra.join(' ')}`);
      mine.push(ourRun);
    }
    assert.equal(find(mine[0], 'DS01_UNDEL_N_NO_UNDEL_DS')?.level, 'INFO');
    assert.deepEqual(
      mine[1]
        .filter((f) => f.tag.startsWith('DS01_DS_ALGO'))
        .map((f) => `${f.tag} ${String(f.args.ns_list)}`)
        .sort(),
      ['DS01_DS_ALGO_DEPRECATED -', 'DS01_DS_ALGO_OK -'],
    );
    assert.equal(find(mine[2], 'DS07_DS_ON_PARENT_SERVER')?.args.ns_list, '-');
    assert.ok(find(mine[2], 'DS07_SIGNED') && find(mine[2], 'DS01_DS_ALGO_2_MISSING'));
    // The lab's root zone is not signed: DNSSEC07 stops the module before DNSSEC01 could say DS01_ROOT_N_NO_UNDEL_DS.
    assert.deepEqual([find(mine[3], 'DS07_NOT_SIGNED')?.level, find(mine[3], 'DS01_ROOT_N_NO_UNDEL_DS')], ['WARNING', undefined]);
  });

  test('every DNSSEC finding at INFO and above agrees with zonemaster-cli, arguments included', async () => {
    const domains = scenarios.map((s) => scenarioDomain(s));
    const disagreements: string[] = [];
    // Two domains at a time: the reference is slow to start, and the machine is shared.
    for (let i = 0; i < domains.length; i += 2) {
      await Promise.all(
        domains.slice(i, i + 2).map(async (domain) => {
          const [theirs, mine] = await Promise.all([reference(lab, domain), ours(lab, domain)]);
          const [a, b] = [dnssecKeys(theirs), dnssecKeys(mine)];
          for (const key of a.filter((k) => !b.includes(k))) disagreements.push(`${domain} missing: ${key}`);
          for (const key of b.filter((k) => !a.includes(k))) disagreements.push(`${domain} extra: ${key}`);
        }),
      );
    }
    assert.deepEqual(disagreements, []);
  });
});
